import { McpLiteError, toMcpLiteError } from '../../core/errors.js';
import type { CallerSource } from '../../core/operation-caller.js';
import type { CallResult, PromiseOutcome } from '../../core/outcomes.js';
import type { ToolServer } from '../../core/server.js';
import type { Exchange } from './exchange.js';

/**
 * Longest stretch the wait goes without sending the client anything: an SSE comment then tells proxies and
 * clients that the request is alive (the Streamable HTTP binding's default keep-alive).
 */
const KEEP_ALIVE_MS = 15_000;

/**
 * A promise's work awaited within the `tools/call` that made it, for a client that did not opt into tasks:
 * ordinary MCP clients (the SDKs' `callTool`, every adapter built on them) expect the answer of the call they made,
 * not a token to redeem. Waits up to `waitMs` (`ToolServerOptions.mcpInlineWaitMs`) for the work to settle, with a
 * keep-alive on the request's stream every so often; the handler's notices go on reaching the request meanwhile
 * (the caller keeps them open). Returns the work's outcome, or the promise (with a fresh estimate) when the wait
 * is over first. The work's own failure is thrown as its tool error, as the call would have thrown it. A request
 * cancelled while it waits (`notifications/cancelled`, a closed connection) cancels the work: its client never
 * saw the token, so nobody could redeem it.
 */
export async function awaitPromised(
  server: ToolServer,
  first: CallResult & { outcome: PromiseOutcome },
  x: CallerSource & Pick<Exchange, 'keepAlive'>,
  signal: AbortSignal,
  waitMs: number,
): Promise<CallResult> {
  const promises = server.promises!;
  // The call's own caller: the promise manager's one ownership rule lets it redeem what it made.
  const caller: CallerSource = x;
  const deadline = Date.now() + waitMs;
  let promise = first.outcome;
  for (let left = waitMs; left > 0; left = deadline - Date.now()) {
    const redeemed = await promises.redeem(
      promise.token,
      caller,
      Math.min(left, KEEP_ALIVE_MS),
      () => signal,
    );
    if (redeemed.outcome.type !== 'promise') {
      const meta = {
        ...first.meta,
        response_type: redeemed.outcome.type,
        timestamp: Date.now(),
        processing_time_ms: Math.round(redeemed.processingTimeMs),
      };
      delete meta.promise_token;
      delete meta.estimated_completion;
      return { outcome: redeemed.outcome, meta };
    }
    if (signal.aborted) {
      await promises.cancel(promise.token, caller).catch(() => {});
      throw toMcpLiteError(signal.reason ?? new McpLiteError('cancelled', 'The call was cancelled'));
    }
    promise = redeemed.outcome;
    x.keepAlive?.();
  }
  return { outcome: promise, meta: first.meta };
}
