import type { NeutralHandler, NeutralResponse } from '../../core/http.js';
import { unrefTimer } from '../../core/timers.js';

/**
 * Liveness and readiness over HTTP (`GET /healthz`, `GET /readyz`), for load balancers and orchestrators, and the
 * readiness state the gRPC health service reports (`serve` wires it). Both paths answer before any binding, so
 * they need no bearer token and cost no more than a JSON literal; the Host guard still applies, as to every route.
 */

/** A readiness check: resolves when this process can serve, rejects (with the reason) when it cannot. */
export type ReadinessCheck = () => Promise<void>;

/** Options of `createHealthHandler` and `Readiness`. */
export interface HealthOptions {
  /** Decides readiness (the CLI pings Redis). Default: ready whenever the process serves. */
  readiness?: ReadinessCheck;
  /** A check still running after this counts as failed ("readiness check timed out"). Default 2 000 ms. */
  timeoutMs?: number;
  /** The liveness path. Default `/healthz`. */
  healthPath?: string;
  /** The readiness path. Default `/readyz`. */
  readyPath?: string;
}

/** The state of readiness a check leaves: ready, or not with the reason. */
export type ReadinessState = { ready: true } | { ready: false; reason: string };

/**
 * Runs a readiness check on demand, bounded by a timeout, sharing one check among concurrent askers (a burst of
 * probes costs one ping), and tells a listener when the answer changes (the gRPC health service follows it).
 */
export class Readiness {
  private running: Promise<ReadinessState> | undefined;
  private last: ReadinessState | undefined;
  private readonly listeners = new Set<(state: ReadinessState) => void>();
  private readonly timeoutMs: number;

  constructor(
    private readonly probe: ReadinessCheck | undefined,
    options: Pick<HealthOptions, 'timeoutMs'> = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Whether a check was configured (without one, the process is always ready). */
  get checked(): boolean {
    return this.probe !== undefined;
  }

  /** Runs the check (or joins the one running); never rejects. */
  check(): Promise<ReadinessState> {
    if (!this.probe) return Promise.resolve(READY);
    this.running ??= this.runCheck(this.probe).then((state) => {
      this.running = undefined;
      if (state.ready !== this.last?.ready) {
        this.last = state;
        for (const listener of this.listeners) listener(state);
      }
      return state;
    });
    return this.running;
  }

  /**
   * Calls `listener` whenever a check's answer differs from the previous one (the first answer included), and at
   * once with the last answer when there was one.
   */
  onChange(listener: (state: ReadinessState) => void): () => void {
    this.listeners.add(listener);
    if (this.last) listener(this.last);
    return () => this.listeners.delete(listener);
  }

  /**
   * Checks now and then every `intervalMs` until the returned function is called (the timer does not keep the
   * process alive).
   */
  poll(intervalMs: number): () => void {
    void this.check();
    const timer = setInterval(() => void this.check(), intervalMs);
    unrefTimer(timer);
    return () => clearInterval(timer);
  }

  private async runCheck(check: ReadinessCheck): Promise<ReadinessState> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('readiness check timed out')), this.timeoutMs);
    });
    try {
      await Promise.race([Promise.resolve().then(check), timeout]);
      return READY;
    } catch (err) {
      return { ready: false, reason: reasonOf(err) };
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The handler of `GET /healthz` (200 `{"status":"ok","pid":…}` whenever the process serves) and `GET /readyz`
 * (200 `{"status":"ready"}`, or 503 `{"status":"unavailable","reason":…}` when the check fails or times out).
 * Other paths are declined synchronously; other methods than GET and HEAD get 405.
 */
export function createHealthHandler(readiness: Readiness, options: HealthOptions = {}): NeutralHandler {
  const healthPath = options.healthPath ?? '/healthz';
  const readyPath = options.readyPath ?? '/readyz';
  // The liveness answer never changes: made once.
  // Workers have no process (and no pid) unless nodejs_compat gives them one.
  const alive = JSON.stringify({ status: 'ok', pid: globalThis.process?.pid });
  return (request) => {
    const { path } = request;
    if (path !== healthPath && path !== readyPath) return undefined;
    const head = request.method === 'HEAD';
    if (request.method !== 'GET' && !head) {
      return Promise.resolve({ status: 405, headers: { allow: 'GET, HEAD', ...NO_STORE } });
    }
    if (path === healthPath) return Promise.resolve(reply(200, alive, head));
    if (!readiness.checked) return Promise.resolve(reply(200, READY_BODY, head));
    return readiness
      .check()
      .then((state) =>
        state.ready
          ? reply(200, READY_BODY, head)
          : reply(503, JSON.stringify({ status: 'unavailable', reason: state.reason }), head),
      );
  };
}

function reply(status: number, body: string, head: boolean): NeutralResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', ...NO_STORE },
    ...(head ? {} : { body }),
  };
}

/** The message of a failed check, bounded (it goes to whoever can reach the port). */
function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return (message || 'readiness check failed').slice(0, 200);
}

const READY: ReadinessState = { ready: true };
const READY_BODY = JSON.stringify({ status: 'ready' });
const NO_STORE = { 'cache-control': 'no-store' };
const DEFAULT_TIMEOUT_MS = 2000;
