import type { JsonSchema } from '../core/schema.js';
import { fromMcpResult } from './mcp-result.js';
import type { WireContext, WireElicitation, WireOutcome } from './transport.js';
import { abortError, isRecord } from './wire-errors.js';

/** An `elicitation/create` a server sent while a call ran, waiting for the user's answer (`respond`). */
export interface ServerElicitation {
  params: Record<string, unknown>;
  respond(result: Record<string, unknown>): void;
}

/**
 * How a call on a handshake MCP connection (the SDK's, or the client's own over stdio) meets the server's
 * elicitations: the call's wait ends with whichever comes first, its result or an `elicitation/create`, which
 * becomes the elicitation outcome whose `resume` answers the server's request and waits on the same call again.
 * An elicitation goes to the call that has waited longest; with none waiting, it is declined.
 */
export interface ElicitationRace {
  /** A server's `elicitation/create`: to the longest-waiting call, or declined. */
  offer(request: ServerElicitation): void;
  /** The outcome of `pending` (a `tools/call`'s result), unless the server elicits first; the call's signal ends it. */
  race(pending: Promise<Record<string, unknown>>, ctx: WireContext): Promise<WireOutcome>;
  /** Forgets the waiting calls (the connection closed). */
  clear(): void;
}

/** An ElicitationRace whose results are read as MCP results (`fromMcpResult`) and whose errors by `toError`. */
export function elicitationRace(
  toError: (err: unknown, signal: AbortSignal | undefined) => unknown,
): ElicitationRace {
  const waiters: Array<(request: ServerElicitation) => void> = [];

  function race(pending: Promise<Record<string, unknown>>, ctx: WireContext): Promise<WireOutcome> {
    return new Promise((resolve, reject) => {
      let done = false;
      const waiter = (request: ServerElicitation) => {
        if (done) return request.respond({ action: 'decline' });
        done = true;
        resolve(elicitation(request, pending));
      };
      waiters.push(waiter);
      const settle = () => {
        done = true;
        const i = waiters.indexOf(waiter);
        if (i >= 0) waiters.splice(i, 1);
        ctx.signal?.removeEventListener('abort', onAbort);
      };
      // An answered elicitation waits on a request its first round started: this round's deadline is its own.
      const onAbort = () => {
        if (done) return;
        settle();
        reject(abortError(ctx.signal));
      };
      ctx.signal?.addEventListener('abort', onAbort, { once: true });
      pending.then(
        (r) => {
          if (done) return;
          settle();
          try {
            resolve(fromMcpResult(r));
          } catch (err) {
            // A tool execution error the result carries (mcp-result.ts).
            reject(err);
          }
        },
        (err) => {
          if (done) return;
          settle();
          reject(ctx.signal?.aborted ? abortError(ctx.signal) : toError(err, ctx.signal));
        },
      );
      if (ctx.signal?.aborted) onAbort();
    });
  }

  function elicitation(
    request: ServerElicitation,
    pending: Promise<Record<string, unknown>>,
  ): WireElicitation {
    return {
      type: 'elicitation',
      message: String(request.params.message ?? ''),
      requestedSchema: (isRecord(request.params.requestedSchema)
        ? request.params.requestedSchema
        : {}) as JsonSchema,
      resume(values, ctx) {
        const next = race(pending, ctx);
        request.respond(values === undefined ? { action: 'decline' } : { action: 'accept', content: values });
        return next;
      },
    };
  }

  return {
    offer(request) {
      const waiter = waiters.shift();
      if (waiter) waiter(request);
      else request.respond({ action: 'decline' });
    },
    race,
    clear: () => {
      waiters.length = 0;
    },
  };
}
