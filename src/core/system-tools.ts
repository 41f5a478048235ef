import type { Catalog } from './catalog.js';
import { McpLiteError } from './errors.js';
import type { CallerSource } from './operation-caller.js';
import type { Outcome } from './outcomes.js';
import { MAX_REDEEM_WAIT_MS, type PromiseManager } from './promises/manager.js';
import type { ToolServerOptions } from './server-options.js';
import { toolNotFound } from './suggest.js';
import type { WorkQueue } from './work-queue.js';

/** Names of the system tools. */
export const REDEEM_TOOL = 'redeem';
/** See REDEEM_TOOL. */
export const CANCEL_TOOL = 'cancel';

/**
 * Whether a server made with these options can return a promise from its start, hence lists `redeem` and `cancel`
 * (spec: a server that returns promises must provide `redeem`; one that never does should not show the model
 * tools it can never use). A call becomes a promise in two ways only: its tool is long-running (a catalog tool,
 * or a webtool version's own action), or it outlives the answer budget, which promotes calls only when one was
 * configured (`answerBudgetMs` > 0) or, by default, on a server that has long-running tools anyway. A store is
 * needed too; whoever asks checks that.
 */
export function offersPromises(
  options: Pick<ToolServerOptions, 'tools' | 'webtools' | 'answerBudgetMs'>,
): boolean {
  if (options.answerBudgetMs !== undefined && options.answerBudgetMs > 0) return true;
  if (options.tools.some((t) => t.longRunning)) return true;
  return (options.webtools ?? []).some((w) =>
    [w.actions, ...(w.versions ?? []).map((v) => v.actions ?? [])].some((actions) =>
      actions.some((a) => typeof a !== 'string' && a.longRunning),
    ),
  );
}

/**
 * The system tools' calls, listed now when `offered`, else as soon as a long-running tool joins the catalog (a tool
 * added at run time); the map stays empty until then, so `redeem` and `cancel` are unknown tools.
 */
export function offerSystemTools(
  catalog: Catalog,
  promises: PromiseManager,
  offered: boolean,
  watch?: WatchPartials,
): ReadonlyMap<string, SystemCall> {
  const calls = new Map<string, SystemCall>();
  const list = () => {
    for (const [name, call] of addSystemTools(catalog, promises, watch)) calls.set(name, call);
  };
  if (offered) {
    list();
    return calls;
  }
  const stop = catalog.onChange(() => {
    const longRunning = catalog.names().some((n) => catalog.get(n)?.longRunningEstimateMs !== undefined);
    if (!longRunning || calls.size > 0) return;
    stop();
    list();
  });
  return calls;
}

/**
 * `tool_not_found` for `name`, saying why when it is a system tool this server does not list: it hands out no
 * promises, so there is nothing to redeem or cancel.
 */
export function unknownTool(name: string, available: readonly string[]): McpLiteError {
  const err = toolNotFound(name, available);
  if (name !== REDEEM_TOOL && name !== CANCEL_TOOL) return err;
  return new McpLiteError(err.code, err.message, {
    ...err.data,
    suggestion: `This server never returns promises, so it has no '${name}' tool: call one of available_tools directly`,
  });
}

/**
 * How a system tool is answered: by core itself, with its outcome and how long it took. `caller` is whoever calls:
 * the promise manager's one rule decides which promises it reaches. `signal` gives the client's signal,
 * read only by a call that has to wait (a binding makes its signal lazily, and most redeems never wait).
 */
export type SystemCall = (
  args: Record<string, unknown>,
  signal: () => AbortSignal | undefined,
  caller: CallerSource,
  onPartial?: (data: unknown) => void | Promise<void>,
) => Promise<{ outcome: Outcome; processingTimeMs: number }>;

/** Forwards a running job's partials to a streaming `redeem` (`WorkQueue.watch`). */
export type WatchPartials = WorkQueue['watch'];

/**
 * Adds `redeem` and `cancel` (system tools: listed like the others, answered by the promise manager rather than a
 * handler) to the catalog; returns how each is answered.
 */
export function addSystemTools(
  catalog: Catalog,
  promises: PromiseManager,
  watch?: WatchPartials,
): Map<string, SystemCall> {
  const calls = new Map<string, SystemCall>();
  const tokenSchema = {
    type: 'string',
    description: 'The promise token received from a previous operation',
  };
  catalog.add(
    {
      name: REDEEM_TOOL,
      '@type': 'system',
      description:
        'Redeem a promise token to get the result of a long-running operation. Returns the final result or a new promise.',
      inputSchema: {
        type: 'object',
        required: ['promise'],
        properties: {
          promise: tokenSchema,
          wait_ms: {
            type: 'integer',
            minimum: 0,
            maximum: MAX_REDEEM_WAIT_MS,
            description: 'Wait up to this long for the work to finish before answering with a fresh promise',
          },
        },
      },
      handler: unreachable,
    },
    true,
  );
  catalog.add(
    {
      name: CANCEL_TOOL,
      '@type': 'system',
      description: 'Cancel the long-running operation behind a promise token.',
      inputSchema: { type: 'object', required: ['promise'], properties: { promise: tokenSchema } },
      handler: unreachable,
    },
    true,
  );
  calls.set(REDEEM_TOOL, async (args, signal, caller, onPartial) => {
    const waitMs = typeof args.wait_ms === 'number' ? args.wait_ms : 0;
    if (!onPartial || waitMs <= 0 || !watch) return promises.redeem(args.promise, caller, waitMs, signal);
    // A streaming redeem that waits sees the work's partials as they come, wherever the work runs. The owner is
    // checked first, so that nobody watches another principal's work.
    const record = await promises.record(args.promise, caller);
    const stop =
      record.status === 'pending'
        ? await watch(record.token, record.expiresAt, onPartial).catch(() => () => {})
        : () => {};
    try {
      return await promises.redeem(record.token, caller, waitMs, signal);
    } finally {
      stop();
    }
  });
  calls.set(CANCEL_TOOL, async (args, _signal, caller) => {
    const r = await promises.cancel(args.promise, caller);
    return { outcome: { type: 'answer', result: { promise: args.promise, ...r } }, processingTimeMs: 0 };
  });
  return calls;
}

function unreachable(): never {
  throw new McpLiteError('internal', 'System tools are answered by the server itself');
}
