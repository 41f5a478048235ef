import { McpLiteError } from '../core/errors.js';
import { readBoundedText } from '../core/read-bounded.js';
import { authError } from './auth-challenge.js';
import { boundExceeded } from './limits.js';
import { fromHttpStatus } from './wire-errors.js';

/** A `fetch` as the HTTP transports call it: `fetchWithinOrigin`, or it wrapped by OAuth (`oauth-session.ts`). */
export type HttpFetch = (url: string | URL, init: RequestInit) => Promise<Response>;

/** Redirects followed in a row before giving up (as browsers and the MCP SDK do, fewer). */
const MAX_REDIRECTS = 5;

/**
 * `fetch` that follows a redirect only within the request's origin, and for a POST only when the method and
 * body are kept (307, 308). Anything else is refused with `unavailable` (`data.reason: "redirect_refused"`) before
 * a byte goes there: fetch's own `follow` would take the custom headers and the body to another origin (it drops
 * only `Authorization`), which is how a `-H "X-Custom: secret"` reached a third party.
 */
export async function fetchWithinOrigin(url: string | URL, init: RequestInit): Promise<Response> {
  let current = new URL(url);
  const method = (init.method ?? 'GET').toUpperCase();
  for (let hops = 0; ; hops++) {
    const res = await fetch(current, { ...init, redirect: 'manual' });
    const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
    if (location === null) return res;
    await res.body?.cancel().catch(() => {});
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw redirectRefused(res.status, location, 'its Location is not a URL');
    }
    const keepsMethod = res.status === 307 || res.status === 308 || method === 'GET' || method === 'HEAD';
    const why =
      next.origin !== current.origin
        ? 'it leads to another origin'
        : next.username !== current.username || next.password !== current.password
          ? 'it changes the credentials in the URL'
          : !keepsMethod
            ? `a ${res.status} would turn the ${method} into a GET`
            : hops >= MAX_REDIRECTS
              ? `more than ${MAX_REDIRECTS} redirects`
              : undefined;
    if (why) throw redirectRefused(res.status, shown(next), why);
    current = next;
  }
}

/** A URL as errors show it: no credentials, query or fragment (they may carry secrets). */
export function shown(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function redirectRefused(status: number, location: string, why: string): McpLiteError {
  return new McpLiteError('unavailable', `Redirect (HTTP ${status}) to ${location} not followed: ${why}`, {
    reason: 'redirect_refused',
    http_status: status,
    location,
  });
}

/**
 * The body as text, refusing one over `limit` bytes (by its Content-Length, or as it arrives) with
 * `payload_too_large`: `res.text()` would buffer whatever the server sends.
 */
export function readResponseText(res: Response, limit: number): Promise<string> {
  return readBoundedText(res, limit, () => boundExceeded('maxResponseBytes', limit));
}

/**
 * A whole (non-streamed) reply's body as JSON, at most `limit` bytes: a 401 or 403 is the auth error (with its
 * challenge) whatever the body says (an OAuth error object is not the wire's error), and a non-JSON body is the
 * HTTP status's error.
 */
export async function readJsonReply(res: Response, limit: number): Promise<unknown> {
  const text = await readResponseText(res, limit);
  const denied = authError(res.status, res.headers, text);
  if (denied) throw denied;
  try {
    return JSON.parse(text);
  } catch {
    throw fromHttpStatus(res.status, text);
  }
}
