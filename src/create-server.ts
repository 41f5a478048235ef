import type { PromiseStore } from './core/promises/store.js';
import { ToolServer, type ToolServerOptions } from './core/server.js';
import { MemoryPromiseStore } from './stores/memory.js';

/** Options of `createServer`: the core options, with the promise store defaulting to the memory store. */
export interface ServerOptions extends Omit<ToolServerOptions, 'promiseStore'> {
  /** Where promises live. Default: a new in-memory store. `false` turns promises off (no `redeem` tool). */
  promiseStore?: PromiseStore | false;
}

/** Creates a tool server with the embedded defaults (in-memory promises). Serve it with `serve`. */
export function createServer(options: ServerOptions): ToolServer {
  const { promiseStore, ...rest } = options;
  const store = promiseStore === false ? undefined : (promiseStore ?? new MemoryPromiseStore());
  return new ToolServer({ ...rest, ...(store ? { promiseStore: store } : {}) });
}
