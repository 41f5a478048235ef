import { randomBytes } from 'node:crypto';
import { McpLiteError } from '../../core/errors.js';
import type { JsonRpcId } from '../common/jsonrpc.js';

interface Pending {
  resolve: (result: unknown) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
}

/**
 * Requests the server sends to the client (elicitation/create on the handshake revisions) and waits for. Over
 * Streamable HTTP the answer comes back in a separate POST, perhaps without a session, so the ids carry 96 random
 * bits and the pending table is the binding's, not a session's.
 */
export class ServerRequests {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly timeoutMs: number) {}

  /** Opens a request: its id to send and the answer to await (rejects on timeout, error reply or abort). */
  open(signal?: AbortSignal): { id: string; answer: Promise<unknown> } {
    const id = `srv-${randomBytes(12).toString('base64url')}`;
    const answer = new Promise<unknown>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.pending.delete(id);
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        done();
        reject(signal?.reason ?? new McpLiteError('cancelled', 'The request was cancelled'));
      };
      const timer = setTimeout(() => {
        done();
        reject(new McpLiteError('deadline_exceeded', 'The client did not answer the server request in time'));
      }, this.timeoutMs);
      timer.unref();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (r) => {
          done();
          resolve(r);
        },
        reject: (e) => {
          done();
          reject(e);
        },
        timer,
      });
    });
    return { id, answer };
  }

  /** Settles the request a client response answers; false when no such request is pending. */
  settle(message: { id: JsonRpcId; result?: unknown; error?: unknown }): boolean {
    const p = typeof message.id === 'string' ? this.pending.get(message.id) : undefined;
    if (!p) return false;
    if (message.error !== undefined) {
      const e = message.error as { message?: unknown };
      p.reject(new McpLiteError('invalid_request', `The client refused: ${String(e?.message ?? 'error')}`));
    } else p.resolve(message.result);
    return true;
  }

  /** Rejects everything pending (shutdown). */
  rejectAll(reason: unknown): void {
    for (const p of [...this.pending.values()]) p.reject(reason);
  }
}
