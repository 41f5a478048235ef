import type { McpLiteError } from '../core/errors.js';
import { authError } from './auth-challenge.js';
import { type HttpFetch, readResponseText } from './http-fetch.js';
import { boundExceeded, type ClientLimits } from './limits.js';

/** What the bounded SDK wires report: a bound broken (the connection's calls then fail), an auth refusal. */
export interface SdkWireHooks {
  onBoundExceeded(err: McpLiteError): void;
  onDenied?(err: McpLiteError): void;
}

/**
 * The `fetch` given to the SDK's Streamable HTTP transport, which reads bodies whole (`response.json()`) and
 * SSE events of any size: each body comes back bounded (a JSON body to `maxResponseBytes`; an SSE body to
 * `maxResponseBytes` per event and, for a POST's stream, `maxStreamBytes` in all). A 401 or 403 is read here, as
 * the SDK keeps only the status, so its challenge reaches the caller (`onDenied`).
 */
export function boundedSdkFetch(limits: ClientLimits, hooks: SdkWireHooks, send: HttpFetch = fetch) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const res = await send(url, init ?? {});
    if (res.status === 401 || res.status === 403) {
      const text = await readResponseText(res, limits.maxResponseBytes);
      const denied = authError(res.status, res.headers, text);
      if (denied) hooks.onDenied?.(denied);
      return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    if (!res.body) return res;
    const sse = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
    const posted = (init?.method ?? 'GET').toUpperCase() === 'POST';
    const body = res.body.pipeThrough(
      sse
        ? sseBound(limits.maxResponseBytes, posted ? limits.maxStreamBytes : Number.POSITIVE_INFINITY, hooks)
        : sizeBound(limits.maxResponseBytes),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** A body cut off (as an error) past `limit` bytes. */
function sizeBound(limit: number): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  return new TransformStream({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > limit) controller.error(boundExceeded('maxResponseBytes', limit));
      else controller.enqueue(chunk);
    },
  });
}

/**
 * An SSE body cut off when one event (the bytes since the last blank line) passes `eventLimit` or the body
 * passes `totalLimit`. The SDK swallows a stream's error (it only reconnects), so the hooks are told, and the
 * calls waiting on this connection end with the error rather than at their deadline.
 */
function sseBound(eventLimit: number, totalLimit: number, hooks: SdkWireHooks) {
  let total = 0;
  let event = 0;
  let line = 0;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      total += chunk.byteLength;
      for (const byte of chunk) {
        if (byte === 0x0a) {
          if (line === 0) event = 0;
          line = 0;
        } else if (byte !== 0x0d) {
          line++;
          event++;
        }
      }
      const err =
        total > totalLimit
          ? boundExceeded('maxStreamBytes', totalLimit)
          : event > eventLimit
            ? boundExceeded('maxResponseBytes', eventLimit)
            : undefined;
      if (!err) return controller.enqueue(chunk);
      hooks.onBoundExceeded(err);
      controller.error(err);
    },
  });
}
