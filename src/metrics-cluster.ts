import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * Metrics of `mcplite serve --cluster --metrics`: the primary deals each connection to a worker, so a scrape of
 * `/metrics` lands on any one of them. Each worker answers it with the whole cluster's metrics instead: it asks
 * the primary, which gathers every worker's registry over IPC (prom-client's AggregatorRegistry) and sums them
 * (counters, histograms, per-process gauges; gauges that every worker reads from the shared store, such as the
 * queue's waiting jobs, take the maximum instead of the sum: see their `aggregator` in metrics.ts).
 */

/** A worker's request for the cluster's metrics, and the primary's answer. */
interface MetricsRequest {
  mcplite: 'metrics';
  id: number;
}
interface MetricsAnswer {
  mcplite: 'metrics-text';
  id: number;
  text?: string;
  error?: string;
}

/**
 * In a cluster worker: offers `registry` to the primary's aggregation, and returns the function that fetches the
 * cluster's aggregate (rejecting when the primary does not answer within `timeoutMs`).
 */
export function clusterWorkerMetrics(registry: Registry, timeoutMs = 6000): () => Promise<string> {
  // Constructing one adds prom-client's worker-side listener; the registries it answers with are ours.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>();
  let next = 0;
  process.on('message', (m: unknown) => {
    if (!isAnswer(m)) return;
    const pending = waiting.get(m.id);
    if (!pending) return;
    waiting.delete(m.id);
    if (m.text !== undefined) pending.resolve(m.text);
    else pending.reject(new Error(m.error ?? 'no metrics'));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      if (!process.send || !process.connected)
        return reject(new Error('not connected to the cluster primary'));
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('the cluster primary did not answer'));
      }, timeoutMs);
      waiting.set(id, {
        resolve: (text) => {
          clearTimeout(timer);
          resolve(text);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      });
      process.send({ mcplite: 'metrics', id } satisfies MetricsRequest);
    });
}

/** In the cluster primary: answers the workers' requests for the cluster's metrics. */
export function answerClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, m: unknown) => {
    if (!isRequest(m)) return;
    const reply = (answer: Omit<MetricsAnswer, 'mcplite' | 'id'>) => {
      if (worker.isConnected())
        worker.send({ mcplite: 'metrics-text', id: m.id, ...answer } satisfies MetricsAnswer);
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (err: unknown) => reply({ error: err instanceof Error ? err.message : String(err) }),
    );
  });
}

function isRequest(m: unknown): m is MetricsRequest {
  return typeof m === 'object' && m !== null && (m as { mcplite?: unknown }).mcplite === 'metrics';
}

function isAnswer(m: unknown): m is MetricsAnswer {
  return typeof m === 'object' && m !== null && (m as { mcplite?: unknown }).mcplite === 'metrics-text';
}
