import { McpLiteError } from '../core/errors.js';
import { readBoundedBytes } from '../core/read-bounded.js';
import { fetchWithinOrigin, shown } from './http-fetch.js';

/**
 * Bytes of one OAuth document (protected resource metadata, authorization server metadata, a registration answer,
 * a token answer). Real ones are a few KiB; the bound is what keeps an endless one from growing the process.
 */
export const OAUTH_DOCUMENT_BYTES = 1024 * 1024;
/** Milliseconds for one OAuth request, its answer read whole. */
export const OAUTH_DOCUMENT_MS = 30_000;

/**
 * The `fetch` handed to the MCP SDK's auth module, the one place every OAuth request of the client goes through:
 * redirects only within the origin (`fetchWithinOrigin`), and each answer read whole here, with the byte bound
 * enforced while it arrives and the time bound over the request and its body. The SDK then parses a body already
 * in memory. A bound reached fails the sign-in (`unauthenticated`, `data.reason: "oauth_failed"`), naming the URL.
 */
export function boundedOAuthFetch(
  limit = OAUTH_DOCUMENT_BYTES,
  timeoutMs = OAUTH_DOCUMENT_MS,
): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return async (url, init = {}) => {
    const where = shown(new URL(url));
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    try {
      const res = await fetchWithinOrigin(url, { ...init, signal });
      const body = await readBoundedBytes(res, limit, () =>
        failed(`the answer of ${where} is larger than ${limit} bytes`, 'bytes'),
      );
      // A 204/304 answer cannot carry a body, even an empty one.
      const empty = res.status === 204 || res.status === 304;
      return new Response(empty ? null : (body as BodyInit), {
        status: res.status,
        statusText: res.statusText,
        headers: res.headers,
      });
    } catch (err) {
      if (deadline.aborted && !init.signal?.aborted)
        throw failed(`no complete answer from ${where} within ${timeoutMs} ms`, 'time');
      throw err;
    }
  };
}

function failed(message: string, bound: 'bytes' | 'time'): McpLiteError {
  return new McpLiteError('unauthenticated', `OAuth sign-in failed: ${message}`, {
    reason: 'oauth_failed',
    bound,
  });
}

/** True for the error of an OAuth answer past its bound (`boundedOAuthFetch`). */
export function isOAuthBoundError(err: unknown): err is McpLiteError {
  return err instanceof McpLiteError && err.data?.bound !== undefined && err.data?.reason === 'oauth_failed';
}
