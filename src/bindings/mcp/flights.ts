import { McpLiteError, toMcpLiteError } from '../../core/errors.js';
import type { MaybePromise } from '../../core/maybe-promise.js';
import type { JsonRpcId, JsonRpcRequest } from '../common/jsonrpc.js';
import type { Exchange } from './exchange.js';

/** Where a request's signal is read from, on first use only (an Exchange, or a cancellable flight's controller). */
export interface Flight {
  readonly signal: AbortSignal;
}

/**
 * The requests in flight that `notifications/cancelled` can reach: those of a session (or of stdio), keyed by
 * session (or principal) and request id, so that one client cannot cancel another's.
 */
export class Flights {
  private readonly inFlight = new Map<string, AbortController>();

  /**
   * Runs `work` registered under the request id. `work` gets where to read the signal from rather than the
   * signal: the node adapter makes its signal (an AbortController and a 'close' listener) on first read, and a
   * call that answers within a tick never needs it.
   */
  run<T>(m: JsonRpcRequest, x: Exchange, work: (flight: Flight) => MaybePromise<T>): MaybePromise<T> {
    // Only a session (or stdio) can send notifications/cancelled for its own requests; a stateless or sessionless
    // request is cancelled by closing its connection, which the transport's signal already says.
    if (m.id === undefined || m.id === null || !x.session) return work(x);
    return this.tracked(m.id, x, work);
  }

  /** `notifications/cancelled`: aborts the named request of this session (or principal), if it still runs. */
  cancel(x: Pick<Exchange, 'session' | 'principal'>, id: JsonRpcId, reason: unknown): void {
    this.inFlight
      .get(flightKey(x, id))
      ?.abort(
        new McpLiteError('cancelled', typeof reason === 'string' ? `Cancelled: ${reason}` : 'Cancelled'),
      );
  }

  private async tracked<T>(
    id: JsonRpcId,
    x: Exchange,
    work: (flight: Flight) => MaybePromise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    const key = flightKey(x, id);
    const onAbort = () => controller.abort(x.signal.reason);
    if (x.signal.aborted) onAbort();
    else x.signal.addEventListener('abort', onAbort, { once: true });
    this.inFlight.set(key, controller);
    try {
      return await work(controller);
    } catch (err) {
      throw controller.signal.aborted ? toMcpLiteError(controller.signal.reason ?? err) : err;
    } finally {
      x.signal.removeEventListener('abort', onAbort);
      if (this.inFlight.get(key) === controller) this.inFlight.delete(key);
    }
  }
}

function flightKey(x: Pick<Exchange, 'session' | 'principal'>, id: JsonRpcId): string {
  return `${x.session?.id ?? x.principal?.id ?? ''}|${JSON.stringify(id)}`;
}
