/**
 * Lets `target` have any number of listeners without Node's MaxListenersExceededWarning (Node warns past 10 on an
 * AbortSignal; other runtimes never warn). node:events is reached through `process.getBuiltinModule`, so that
 * modules using this load where there is no `node:*` (Workers without `nodejs_compat`).
 */
export function allowManyListeners(target: EventTarget): void {
  const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const events = process?.getBuiltinModule?.('node:events') as
    | { setMaxListeners?: (n: number, ...targets: EventTarget[]) => void }
    | undefined;
  events?.setMaxListeners?.(0, target);
}
