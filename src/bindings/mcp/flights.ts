import { McpLiteError, toMcpLiteError } from '../../core/errors.js';
import type { MaybePromise } from '../../core/maybe-promise.js';
import type { JsonRpcId, JsonRpcRequest } from '../common/jsonrpc.js';
import type { Exchange } from './exchange.js';

/** Where a request's signal is read from, on first use only (an Exchange, or a cancellable flight). */
export interface Flight {
  readonly signal: AbortSignal;
}

/**
 * The requests in flight that `notifications/cancelled` can reach: those of a session (or of stdio), keyed by
 * session (or principal) and request id, so that one client cannot cancel another's.
 */
export class Flights {
  private readonly inFlight = new Map<string, TrackedFlight>();

  /**
   * Runs `work`, registered under the request id while it waits. `work` gets where to read the signal from rather
   * than the signal: the flight makes its AbortController (and its link to the exchange's signal) on first read,
   * and a call that answers within a tick never needs it. A synchronous `work` is answered synchronously, with no
   * registration at all (the fast path, docs/architecture.md).
   */
  run<T>(m: JsonRpcRequest, x: Exchange, work: (flight: Flight) => MaybePromise<T>): MaybePromise<T> {
    // Only a session (or stdio) can send notifications/cancelled for its own requests; a stateless or sessionless
    // request is cancelled by closing its connection, which the transport's signal already says.
    if (m.id === undefined || m.id === null || !x.session) return work(x);
    const flight = new TrackedFlight(x);
    let result: MaybePromise<T>;
    try {
      result = work(flight);
    } catch (err) {
      flight.unlink();
      throw flight.failure(err);
    }
    if (!(result instanceof Promise)) {
      flight.unlink();
      return result;
    }
    // No cancel can arrive while the work runs synchronously: a flight is registered only once it has to wait.
    const key = flightKey(x, m.id);
    this.inFlight.set(key, flight);
    const land = () => {
      if (this.inFlight.get(key) === flight) this.inFlight.delete(key);
      flight.unlink();
    };
    return result.then(
      (value) => {
        land();
        return value;
      },
      (err) => {
        land();
        throw flight.failure(err);
      },
    );
  }

  /** `notifications/cancelled`: aborts the named request of this session (or principal), if it still runs. */
  cancel(x: Pick<Exchange, 'session' | 'principal'>, id: JsonRpcId, reason: unknown): void {
    this.inFlight
      .get(flightKey(x, id))
      ?.abort(
        new McpLiteError('cancelled', typeof reason === 'string' ? `Cancelled: ${reason}` : 'Cancelled'),
      );
  }
}

/**
 * A cancellable request: aborted by `notifications/cancelled` or with its exchange's signal. Its controller, and
 * its listener on the exchange's signal, are made only when the work reads the signal.
 */
class TrackedFlight implements Flight {
  private controller: AbortController | undefined;
  private cancelledWith: unknown;
  private cancelled = false;
  private onAbort: (() => void) | undefined;

  constructor(private readonly x: Exchange) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = new AbortController();
      this.controller = controller;
      const outer = this.x.signal;
      if (this.cancelled) controller.abort(this.cancelledWith);
      else if (outer.aborted) controller.abort(outer.reason);
      else {
        this.onAbort = () => controller.abort(outer.reason);
        outer.addEventListener('abort', this.onAbort, { once: true });
      }
    }
    return this.controller.signal;
  }

  abort(reason: McpLiteError): void {
    if (this.controller) this.controller.abort(reason);
    else if (!this.cancelled) {
      this.cancelled = true;
      this.cancelledWith = reason;
    }
  }

  /** What a failure of the work is answered as: the abort's reason when the flight was aborted. */
  failure(err: unknown): unknown {
    if (this.controller) {
      return this.controller.signal.aborted ? toMcpLiteError(this.controller.signal.reason ?? err) : err;
    }
    if (this.cancelled) return toMcpLiteError(this.cancelledWith ?? err);
    const outer = this.x.signal;
    return outer.aborted ? toMcpLiteError(outer.reason ?? err) : err;
  }

  unlink(): void {
    if (this.onAbort) this.x.signal.removeEventListener('abort', this.onAbort);
    this.onAbort = undefined;
  }
}

function flightKey(x: Pick<Exchange, 'session' | 'principal'>, id: JsonRpcId): string {
  return `${x.session?.id ?? x.principal?.id ?? ''}|${typeof id === 'number' ? id : JSON.stringify(id)}`;
}
