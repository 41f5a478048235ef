import { type InspectorTarget, noPrompts } from '../target.js';

/**
 * A target whose connection is still being made: the page can open (and show a sign-in the connection waits
 * for) before it is. Every round waits for `connecting`; a connection that failed (a sign-in refused, the server
 * down) is made again by `reconnect` at the next round, so the page recovers without a restart.
 */
export function deferredTarget(
  shown: { binding: string; target: string },
  connecting: Promise<InspectorTarget>,
  reconnect: () => Promise<InspectorTarget>,
): InspectorTarget {
  let current = connecting;
  let ready: InspectorTarget | undefined;
  const settle = (p: Promise<InspectorTarget>) =>
    p.then(
      (t) => {
        ready = t;
      },
      () => {},
    );
  void settle(current);
  const target = async (): Promise<InspectorTarget> => {
    const attempt = current;
    try {
      return await attempt;
    } catch {
      // Rounds that saw the same failure share one new connection.
      if (current === attempt) {
        current = reconnect();
        void settle(current);
      }
      return current;
    }
  };
  return {
    get binding() {
      return ready?.binding ?? shown.binding;
    },
    get target() {
      return ready?.target ?? shown.target;
    },
    listTools: async (options) => (await target()).listTools(options),
    call: async (name, args, options) => (await target()).call(name, args, options),
    redeem: async (token, options) => (await target()).redeem(token, options),
    cancel: async (token, options) => (await target()).cancel(token, options),
    listPrompts: async (options) => {
      const t = await target();
      if (!t.listPrompts) throw noPrompts(t.binding);
      return t.listPrompts(options);
    },
    getPrompt: async (name, args, options) => {
      const t = await target();
      if (!t.getPrompt) throw noPrompts(t.binding);
      return t.getPrompt(name, args, options);
    },
    close: async () => {
      await (await current.catch(() => undefined))?.close();
    },
  };
}
