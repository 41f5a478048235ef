import { McpLiteError, toMcpLiteError } from '../../core/errors.js';
import type { MaybePromise } from '../../core/maybe-promise.js';
import type { JsonRpcId, JsonRpcRequest } from '../common/jsonrpc.js';
import type { Exchange } from './exchange.js';
import type { McpSession } from './sessions.js';

/** Where a request's signal is read from, on first use only (an Exchange, or a cancellable flight). */
export interface Flight {
  readonly signal: AbortSignal;
}

/**
 * The requests in flight that `notifications/cancelled` can reach: those of a session (or of stdio), keyed by
 * session (or principal) and request id, so that one client cannot cancel another's. A session's requests may
 * run on any replica: a cancel that finds nothing here goes to the others through the session store, and a
 * replica listens for those while requests of the session wait here (`RemoteCancels`).
 */
export class Flights {
  private readonly inFlight = new Map<string, TrackedFlight>();
  private readonly remote = new RemoteCancels((sessionId, id, reason) =>
    this.inFlight.get(`${sessionId}|${keyOfId(id)}`)?.abort(cancelledError(reason)),
  );

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
    const session = x.session;
    this.remote.follow(session);
    const land = () => {
      if (this.inFlight.get(key) === flight) this.inFlight.delete(key);
      this.remote.unfollow(session.id);
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

  /**
   * `notifications/cancelled`: aborts the named request of this session (or principal), if it still runs; a
   * session's request that does not run here may run on another replica, which is told.
   */
  cancel(x: Pick<Exchange, 'session' | 'principal'>, id: JsonRpcId, reason: unknown): void {
    const flight = this.inFlight.get(flightKey(x, id));
    if (flight) flight.abort(cancelledError(reason));
    else if (x.session && id !== null) void x.session.cancelElsewhere(id, reason);
  }
}

/**
 * The sessions with requests waiting here, each listened to (`McpSession.onCancelElsewhere`) while it has one:
 * a cancel another replica received for one of them reaches `cancelHere`. Listening starts with a session's first
 * waiting request and stops with its last.
 */
class RemoteCancels {
  private readonly sessions = new Map<string, { waiting: number; stop?: () => void }>();

  constructor(
    private readonly cancelHere: (sessionId: string, id: string | number, reason: unknown) => void,
  ) {}

  follow(session: McpSession): void {
    const known = this.sessions.get(session.id);
    if (known) {
      known.waiting += 1;
      return;
    }
    const entry: { waiting: number; stop?: () => void } = { waiting: 1 };
    this.sessions.set(session.id, entry);
    session
      .onCancelElsewhere((id, reason) => this.cancelHere(session.id, id, reason))
      .then(
        (stop) => {
          if (this.sessions.get(session.id) === entry) entry.stop = stop;
          else stop();
        },
        // A store that cannot listen costs cross-replica cancels only, as a lost notification would.
        () => {},
      );
  }

  unfollow(sessionId: string): void {
    const entry = this.sessions.get(sessionId);
    if (!entry || --entry.waiting > 0) return;
    this.sessions.delete(sessionId);
    entry.stop?.();
  }
}

function cancelledError(reason: unknown): McpLiteError {
  return new McpLiteError('cancelled', typeof reason === 'string' ? `Cancelled: ${reason}` : 'Cancelled');
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
  return `${x.session?.id ?? x.principal?.id ?? ''}|${keyOfId(id)}`;
}

function keyOfId(id: JsonRpcId): string {
  return typeof id === 'number' ? String(id) : JSON.stringify(id);
}
