import { type McpLiteError, toMcpLiteError } from '../../core/errors.js';
import type { NeutralResponse } from '../../core/http.js';
import type { CallResult } from '../../core/outcomes.js';
import { AsyncQueue } from '../common/async-queue.js';
import { toJsonRpcError } from '../common/jsonrpc.js';
import { SSE_TYPE, toWireResult } from './wire.js';

/** Formats one SSE event. Data is JSON, so it never holds a raw newline. */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Streams one call as SSE (spec 4.3): `message` events carry `{ partial }`, then `done` carries the final result
 * with its `_meta`, or `error` the JSON-RPC error; `heartbeat` is sent whenever nothing else was for
 * `heartbeatMs`. A partial waits until the client has taken the previous events (backpressure).
 */
export function streamCall(
  run: (onPartial: (data: unknown) => Promise<void>) => Promise<CallResult>,
  heartbeatMs: number,
  onInternalError: (err: McpLiteError) => void,
): NeutralResponse {
  const queue = new AsyncQueue<string>();
  let lastSent = Date.now();
  const send = (event: string, data: unknown) => {
    lastSent = Date.now();
    return queue.push(sseEvent(event, data));
  };
  const heartbeat = setInterval(
    () => {
      // Only an idle stream needs one; queued events already keep it alive, and a stalled reader must not make
      // heartbeats pile up in the queue.
      if (Date.now() - lastSent >= heartbeatMs && queue.pending === 0) {
        void send('heartbeat', { timestamp: new Date().toISOString() });
      }
    },
    Math.max(10, Math.floor(heartbeatMs / 2)),
  );
  heartbeat.unref();
  // Called inside an async function so that a synchronous throw also ends as an `error` event; the final event is
  // serialised inside the chain so that a result JSON cannot carry (a BigInt, a cycle) becomes one too.
  (async () => run((data) => send('message', { partial: data })))()
    .then((result) => sseEvent('done', toWireResult(result)))
    .catch((err) => {
      const e = toMcpLiteError(err);
      if (e.code === 'internal') onInternalError(e);
      return sseEvent('error', toJsonRpcError(e));
    })
    .then((event) => {
      lastSent = Date.now();
      return queue.push(event);
    })
    .finally(() => {
      clearInterval(heartbeat);
      queue.end();
    });
  queue.onConsumerGone(() => clearInterval(heartbeat));
  return {
    status: 200,
    headers: {
      'content-type': SSE_TYPE,
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
    body: queue,
  };
}
