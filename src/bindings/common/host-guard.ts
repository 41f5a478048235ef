import { McpLiteError } from '../../core/errors.js';
import type { NeutralHandler, NeutralRequest } from '../../core/http.js';
import { type ErrorWire, JSON_HEADERS } from './http-reply.js';

/** Which Host and Origin headers a server bound to a local address accepts (DNS-rebinding protection). */
export interface HostGuardOptions {
  /** Host names accepted in the Host header, any port. Default: localhost, 127.0.0.1, [::1]. */
  allowedHosts?: readonly string[];
  /** Origins accepted when a browser sends one (scheme://host[:port]). Default: http(s) on the allowed hosts. */
  allowedOrigins?: readonly string[];
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** Whether an address to bind is a loopback address (where DNS-rebinding protection matters most). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
}

function hostName(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1).toLowerCase();
  const colon = hostHeader.indexOf(':');
  return (colon < 0 ? hostHeader : hostHeader.slice(0, colon)).toLowerCase();
}

/** Returns the error for a request (or WebSocket upgrade) whose Host or Origin is not allowed, else undefined. */
export function checkHostAndOrigin(
  request: Pick<NeutralRequest, 'headers'>,
  options: HostGuardOptions = {},
): McpLiteError | undefined {
  const hosts = options.allowedHosts ?? LOOPBACK_HOSTS;
  const host = request.headers.host;
  if (!host || !hosts.includes(hostName(host))) {
    return new McpLiteError('forbidden', 'Forbidden: Host header not allowed (DNS-rebinding protection)');
  }
  const origin = request.headers.origin;
  if (origin !== undefined) {
    const allowed = options.allowedOrigins
      ? options.allowedOrigins.includes(origin)
      : (() => {
          try {
            const u = new URL(origin);
            return (
              (u.protocol === 'http:' || u.protocol === 'https:') && hosts.includes(u.hostname.toLowerCase())
            );
          } catch {
            return false;
          }
        })();
    if (!allowed) {
      return new McpLiteError('forbidden', 'Forbidden: Origin not allowed (DNS-rebinding protection)');
    }
  }
  return undefined;
}

/**
 * Wraps a handler so that requests with a foreign Host or Origin are refused (`forbidden`) before any binding sees
 * them, answered with the status and JSON-RPC body of `wire`, the protocol the guard answers for.
 */
export function guardHosts(
  handler: NeutralHandler,
  wire: ErrorWire,
  options: HostGuardOptions = {},
): NeutralHandler {
  // The last Host header let through: clients send the same one request after request, and comparing it is
  // cheaper than parsing and looking it up again.
  let allowedHost: string | undefined;
  // Not an async function: it would wrap the handler's promise in one more (and cost extra microtask turns).
  return (request) => {
    const { host, origin } = request.headers;
    if (origin === undefined && host !== undefined && host === allowedHost) return handler(request);
    const error = checkHostAndOrigin(request, options);
    if (!error) {
      allowedHost = host;
      return handler(request);
    }
    return Promise.resolve({
      status: wire.httpStatus[error.code],
      headers: JSON_HEADERS,
      body: wire.errorMessage(null, error),
    });
  };
}
