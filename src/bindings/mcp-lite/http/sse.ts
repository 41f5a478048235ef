import type { McpLiteError } from '../../../core/errors.js';
import type { NeutralResponse } from '../../../core/http.js';
import type { Logger } from '../../../core/logger.js';
import type { CallResult } from '../../../core/outcomes.js';
import { unrefTimer } from '../../../core/timers.js';
import { AsyncQueue } from '../../common/async-queue.js';
import { errorExit } from '../../common/error-exit.js';
import { SSE_HEADERS } from '../../common/http-reply.js';
import { toRpcError, toWireResult } from '../wire.js';

/** Formats one SSE event. Data is JSON, so it never holds a raw newline. */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The final event of a streamed call: what `done` and `error` carry on a binding's wire. */
export interface FinalEvents {
  done(result: CallResult): string;
  error(err: McpLiteError): string;
}

/** MCP-lite's final events: `done` with the result object and its `_meta`, `error` with the JSON-RPC error. */
const MCP_LITE_FINAL: FinalEvents = {
  done: (result) => sseEvent('done', toWireResult(result)),
  error: (err) => sseEvent('error', toRpcError(err)),
};

/**
 * Streams one call as SSE (spec 4.3): `message` events carry `{ partial }`, then `done` carries the final result
 * with its `_meta`, or `error` the JSON-RPC error; `heartbeat` is sent whenever nothing else was for
 * `heartbeatMs`. A partial waits until the client has taken the previous events (backpressure).
 */
export function streamCall(
  run: (onPartial: (data: unknown) => Promise<void>) => Promise<CallResult>,
  heartbeatMs: number,
  log: Pick<Logger, 'error'>,
  final: FinalEvents = MCP_LITE_FINAL,
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
  unrefTimer(heartbeat);
  // Called inside an async function so that a synchronous throw also ends as an `error` event; the final event is
  // serialised inside the chain so that a result JSON cannot carry (a BigInt, a cycle) becomes one too.
  (async () => run((data) => send('message', { partial: data })))()
    .then((result) => final.done(result))
    .catch((err) => {
      return final.error(errorExit(err, log));
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
  return { status: 200, headers: SSE_HEADERS, body: queue };
}
