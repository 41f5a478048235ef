import type { McpLiteError } from '../../../core/errors.js';
import type { NeutralResponse } from '../../../core/http.js';
import type { Logger } from '../../../core/logger.js';
import type { CallResult } from '../../../core/outcomes.js';
import { errorExit } from '../../common/error-exit.js';
import { OutboundStream, sseEvent } from '../../common/outbound-stream.js';
import { toRpcError, toWireResult } from '../wire.js';

/** The final event of a streamed call: what `done` and `error` carry on a binding's wire. */
export interface FinalEvents {
  done(result: CallResult): string;
  error(err: McpLiteError): string;
}

/** MCP-lite's final events: `done` with the result object and its `_meta`, `error` with the JSON-RPC error. */
const MCP_LITE_FINAL: FinalEvents = {
  done: (result) => sseEvent('done', JSON.stringify(toWireResult(result))),
  error: (err) => sseEvent('error', JSON.stringify(toRpcError(err))),
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
  maxQueuedBytes?: number,
): NeutralResponse {
  // The one outbound stream: its bound and cut-off, and a `heartbeat` event whenever the stream is idle.
  const stream = new OutboundStream({
    maxQueuedBytes,
    keepAliveMs: heartbeatMs,
    keepAlive: () => sseEvent('heartbeat', JSON.stringify({ timestamp: new Date().toISOString() })),
  });
  // Called inside an async function so that a synchronous throw also ends as an `error` event; the final event is
  // serialised inside the chain so that a result JSON cannot carry (a BigInt, a cycle) becomes one too.
  (async () => run((data) => stream.write(sseEvent('message', JSON.stringify({ partial: data })))))()
    .then((result) => final.done(result))
    .catch((err) => {
      return final.error(errorExit(err, log));
    })
    .then((event) => stream.write(event))
    .finally(() => stream.end());
  return stream.response();
}
