import cluster from 'node:cluster';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { McpLiteError } from './core/errors.js';
import type { NeutralHandler } from './core/http.js';
import type { CallObserver } from './core/middleware/observe-calls.js';
import type { PromiseStore } from './core/promises/store.js';
import { clusterWorkerMetrics } from './metrics-cluster.js';

/**
 * Prometheus metrics of a tool server (`GET /metrics`, prom-client, in a registry of their own so that an
 * application's global registry is left alone). Wiring: pass `observer` as `onCallEnd` to `createServer`, and
 * the Metrics to `serve({ metrics: { metrics } })` (or mount `handler` yourself). The series:
 *
 * - `mcplite_tool_calls_total{tool,binding,outcome}`: finished tool calls; `outcome` is the outcome type
 *   (`answer`, `failure`, `promise`, `elicitation`, ...) or `error:<code>` for a protocol error.
 * - `mcplite_tool_call_duration_seconds{tool,binding}`: a histogram of the time to the answer (a promise's
 *   answer is the promise, not the work's end).
 * - `mcplite_promises_pending` (from `promiseStats`), `mcplite_promises_settled_total{status}` (settled and
 *   cancelled by this process, counted by `instrumentStore`).
 * - `mcplite_queue_waiting`, `mcplite_queue_running` (from `queueStats`).
 * - `mcplite_store_errors_total{operation}`: state store operations that failed (`instrumentStore`, or
 *   `recordStoreError`).
 * - prom-client's default process metrics (CPU, memory, event loop lag, GC, handles).
 *
 * Tool names the server does not have count as tool `_unknown` (whatever the outcome: a rate-limited call to a
 * made-up name too), and tools past `maxTools` distinct names as `_other`, so that no caller can grow the series
 * without bound.
 */

/** Promise counts at scrape time. */
export interface PromiseStats {
  /** Promises not settled yet (everywhere the store can see). */
  pending: number;
}

/** Work queue counts at scrape time. */
export interface QueueStats {
  /** Jobs accepted and not started yet. */
  waiting: number;
  /** Jobs running in this process. */
  running: number;
}

/** Options of `createMetrics`. */
export interface MetricsOptions {
  /** Where `handler` answers. Default `/metrics`. */
  path?: string;
  /** Read at each scrape for `mcplite_promises_pending`; without it that gauge is not exported. */
  promiseStats?: () => Promise<PromiseStats> | PromiseStats;
  /** Read at each scrape for `mcplite_queue_waiting` and `_running`; without it they are not exported. */
  queueStats?: () => Promise<QueueStats> | QueueStats;
  /** Also export prom-client's default process metrics. Default true. */
  defaultMetrics?: boolean;
  /** Most distinct tool names in labels; further names count as `_other`. Default 1 000. */
  maxTools?: number;
  /** The duration histogram's buckets, in seconds. Default 1 ms to 60 s. */
  buckets?: number[];
  /** A stats callback slower than this counts as a store error and its gauge reads NaN. Default 2 000 ms. */
  statsTimeoutMs?: number;
  /**
   * In a worker of `mcplite serve --cluster`: answer scrapes with the whole cluster's metrics, gathered by the
   * primary from every worker (metrics-cluster.ts). Ignored outside a cluster worker. Default false.
   */
  cluster?: boolean;
}

/** The metrics of one server process, and what feeds and serves them. */
export interface Metrics {
  /** The registry every series lives in (add your own, or merge it into another). */
  readonly registry: Registry;
  /** Counts each finished call: pass it as `onCallEnd` to `createServer`. */
  readonly observer: CallObserver;
  /** Answers `GET <path>` in the Prometheus text format; declines other paths synchronously. */
  readonly handler: NeutralHandler;
  /** The path `handler` answers. */
  readonly path: string;
  /** A handler like `handler` at another path. */
  handlerAt(path: string): NeutralHandler;
  /** Counts one failed state store operation (`operation`: `get`, `settle`, `ping`, ...). */
  recordStoreError(operation?: string): void;
  /** Counts one promise this process settled or cancelled. */
  recordPromiseSettled(status: 'settled' | 'cancelled'): void;
  /**
   * The store, counting its failures (`mcplite_store_errors_total`; a full store's `resource_exhausted` is not a
   * failure) and the promises it settles or cancels (`mcplite_promises_settled_total`). Other members pass through.
   */
  instrumentStore<S extends PromiseStore>(store: S): S;
  /** The exposition text, as `handler` serves it. */
  text(): Promise<string>;
}

/** Makes the metrics of a server process in a fresh registry. */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const path = options.path ?? '/metrics';
  const maxTools = options.maxTools ?? 1000;
  const statsTimeoutMs = options.statsTimeoutMs ?? 2000;
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });

  const calls = new Counter({
    name: 'mcplite_tool_calls_total',
    help: 'Tool calls finished, by tool, binding and outcome (outcome type, or error:<code>).',
    labelNames: ['tool', 'binding', 'outcome'] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'mcplite_tool_call_duration_seconds',
    help: 'Time from receipt to the answer of a tool call, in seconds.',
    labelNames: ['tool', 'binding'] as const,
    buckets: options.buckets ?? [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'mcplite_store_errors_total',
    help: 'State store operations that failed, by operation.',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const settled = new Counter({
    name: 'mcplite_promises_settled_total',
    help: 'Promises this process settled or cancelled, by status.',
    labelNames: ['status'] as const,
    registers: [registry],
  });

  const recordStoreError = (operation = 'unknown') => storeErrors.inc({ operation });
  /** A stats callback's answer, bounded in time; undefined (and a store error) when it failed. */
  const read = async <T>(operation: string, stats: () => Promise<T> | T): Promise<T | undefined> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        Promise.resolve().then(stats),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('timed out')), statsTimeoutMs);
        }),
      ]);
    } catch {
      recordStoreError(operation);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  };

  const { promiseStats, queueStats } = options;
  if (promiseStats) {
    new Gauge({
      name: 'mcplite_promises_pending',
      help: 'Promises not settled yet.',
      registers: [registry],
      // Every cluster worker reads the same store: not a sum.
      aggregator: 'max',
      async collect() {
        this.set((await read('promise_stats', promiseStats))?.pending ?? Number.NaN);
      },
    });
  }
  if (queueStats) {
    // Both gauges are collected in the same scrape: one call to queueStats serves them.
    let current: { at: number; stats: Promise<QueueStats | undefined> } | undefined;
    const shared = () => {
      if (!current || Date.now() - current.at > SHARED_STATS_MS) {
        current = { at: Date.now(), stats: read('queue_stats', queueStats) };
      }
      return current.stats;
    };
    new Gauge({
      name: 'mcplite_queue_waiting',
      help: 'Jobs in the work queue not started yet.',
      registers: [registry],
      // Every cluster worker reads the same queue: not a sum.
      aggregator: 'max',
      async collect() {
        this.set((await shared())?.waiting ?? Number.NaN);
      },
    });
    new Gauge({
      name: 'mcplite_queue_running',
      help: 'Jobs of the work queue running in this process.',
      registers: [registry],
      async collect() {
        this.set((await shared())?.running ?? Number.NaN);
      },
    });
  }

  const tools = new Set<string>();
  const toolLabel = (tool: string, known: boolean, outcome: string): string => {
    // A name the server lacks (or hides from this caller) is the caller's choice, whatever the call's outcome.
    if (!known || outcome === 'error:tool_not_found') return '_unknown';
    if (tools.has(tool)) return tool;
    if (tools.size >= maxTools) return '_other';
    tools.add(tool);
    return tool;
  };
  const observer: CallObserver = (record) => {
    const tool = toolLabel(record.tool, record.known, record.outcome);
    calls.inc({ tool, binding: record.binding, outcome: record.outcome });
    durations.observe({ tool, binding: record.binding }, record.seconds);
  };

  const text =
    options.cluster && cluster.isWorker ? clusterWorkerMetrics(registry) : () => registry.metrics();
  const handlerAt =
    (path: string): NeutralHandler =>
    (request) => {
      if (request.path !== path) return undefined;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return Promise.resolve({ status: 405, headers: { allow: 'GET, HEAD' } });
      }
      return text().then(
        (body) => ({
          status: 200,
          headers: { 'content-type': registry.contentType, 'cache-control': 'no-store' },
          ...(request.method === 'HEAD' ? {} : { body }),
        }),
        () => ({
          status: 500,
          headers: { 'content-type': 'text/plain' },
          body: 'metrics collection failed\n',
        }),
      );
    };
  const handler = handlerAt(path);

  return {
    registry,
    observer,
    handler,
    path,
    handlerAt,
    recordStoreError,
    recordPromiseSettled: (status) => settled.inc({ status }),
    instrumentStore: (store) => instrument(store, recordStoreError, (status) => settled.inc({ status })),
    text,
  };
}

/** The store behind a proxy that counts failed operations and successful settles and cancels. */
function instrument<S extends PromiseStore>(
  store: S,
  onError: (operation: string) => void,
  onSettled: (status: 'settled' | 'cancelled') => void,
): S {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property) {
      // The target as receiver: getters and private fields of a store class keep working.
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || property === 'constructor') return value;
      let fn = wrapped.get(property);
      if (!fn) {
        const operation = String(property);
        fn = (...args: unknown[]) => {
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (!(result instanceof Promise)) return result;
          return result.then(
            (r: unknown) => {
              if (r === true && operation === 'settle') onSettled('settled');
              else if (r === true && operation === 'cancel') onSettled('cancelled');
              return r;
            },
            (err: unknown) => {
              if (!(err instanceof McpLiteError && err.code === 'resource_exhausted')) onError(operation);
              throw err;
            },
          );
        };
        wrapped.set(property, fn);
      }
      return fn;
    },
  });
}

/** How long one scrape's queue stats serve both queue gauges. */
const SHARED_STATS_MS = 1000;
