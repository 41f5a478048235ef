import { McpLiteError } from '../errors.js';
import type { Middleware, Operation } from '../operation.js';
import { abortOperation } from '../tool-call-operation.js';

/** How long a tool call may take: one limit for every tool, or a limit chosen per call (undefined: none). */
export type TimeoutLimit = number | ((op: Operation) => number | undefined);

/**
 * Ends every `tools/call` still running after `ms` milliseconds with `deadline_exceeded` (each binding's native
 * deadline error) and aborts its handler's `ctx.signal`, so the work stops too. Give a function to choose the
 * limit per tool: `timeout((op) => (op.name === 'search' ? 2_000 : 10_000))`. A tool that answers with a promise
 * answers before the limit; its background work keeps the server's `maxRunMs`.
 */
export function timeout(ms: TimeoutLimit): Middleware {
  if (typeof ms === 'number') checkLimit(ms);
  return (op, next) => {
    if (op.method !== 'tools/call') return next();
    const limit = typeof ms === 'number' ? ms : ms(op);
    if (limit === undefined) return next();
    checkLimit(limit);
    const running = next();
    if (!(running instanceof Promise)) return running;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const error = new McpLiteError('deadline_exceeded', `The tool did not answer within ${limit} ms`, {
          timeoutMs: limit,
        });
        abortOperation(op, error);
        reject(error);
      }, limit);
      running.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (err) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  };
}

function checkLimit(ms: number): void {
  if (!(ms > 0) || !Number.isFinite(ms)) {
    throw new McpLiteError('invalid_request', 'timeout(ms) needs a positive number of milliseconds');
  }
}
