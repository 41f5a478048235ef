import { McpLiteError } from '../../core/errors.js';
import { randomId } from '../../core/random-id.js';
import type { SessionStateStore } from '../../core/session-state.js';
import type { JsonRpcId } from '../common/jsonrpc.js';

/**
 * Requests the server sends to the client (elicitation/create on the handshake revisions) and waits for. Over
 * Streamable HTTP the answer comes back in a separate POST, perhaps without a session and perhaps to another
 * replica, so the ids carry 96 random bits and the waiting goes through the binding's store
 * (`SessionStateStore.awaitResponse`): a response delivered on any replica sharing it reaches the request.
 */
export class ServerRequests {
  private readonly pending = new Set<(reason: unknown) => void>();

  constructor(
    private readonly store: SessionStateStore,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Sends a request (`send` gets its id, once a response can reach it) and resolves with the client's result;
   * rejects on timeout, an error reply, abort or shutdown.
   */
  async ask(signal: AbortSignal | undefined, send: (id: string) => void): Promise<unknown> {
    signal?.throwIfAborted();
    const id = `srv-${randomId(12, 'base64url')}`;
    const waiter = await this.store.awaitResponse(id, this.timeoutMs);
    return new Promise<unknown>((resolve, reject) => {
      const fail = (reason: unknown) => {
        done();
        waiter.cancel();
        reject(reason);
      };
      const onAbort = () =>
        fail(signal?.reason ?? new McpLiteError('cancelled', 'The request was cancelled'));
      const done = () => {
        this.pending.delete(fail);
        signal?.removeEventListener('abort', onAbort);
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.add(fail);
      waiter.response.then((response) => {
        done();
        if (response.error !== undefined) {
          const e = response.error as { message?: unknown };
          reject(new McpLiteError('invalid_request', `The client refused: ${String(e?.message ?? 'error')}`));
        } else resolve(response.result);
      }, fail);
      send(id);
    });
  }

  /** Settles the request a client response answers, wherever it waits; false when no such request is pending. */
  settle(message: { id: JsonRpcId; result?: unknown; error?: unknown }): Promise<boolean> {
    if (typeof message.id !== 'string') return Promise.resolve(false);
    return this.store.deliverResponse(message.id, { result: message.result, error: message.error });
  }

  /** Rejects everything pending in this process (shutdown). */
  rejectAll(reason: unknown): void {
    for (const fail of [...this.pending]) fail(reason);
  }
}
