import { isLoopbackHost } from '../bindings/common/host-guard.js';
import { McpLiteError } from '../core/errors.js';
import type { NeutralRequest } from '../core/http.js';

/** Who may use the inspector. It can call tools, so no other website may drive it (see docs/inspector.md). */
export interface InspectorGuardOptions {
  /** Host names accepted in the Host header (any port). Default: localhost, 127.0.0.1, [::1]. */
  allowedHosts?: readonly string[];
  /** Serve peers beyond loopback too. Default false: only 127.0.0.0/8 and ::1 get an answer. */
  allowRemote?: boolean;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1).toLowerCase();
  const colon = host.indexOf(':');
  return (colon < 0 ? host : host.slice(0, colon)).toLowerCase();
}

function isLoopbackPeer(address: string | undefined): boolean {
  if (address === undefined) return false;
  return isLoopbackHost(address.startsWith('::ffff:') ? address.slice(7) : address);
}

/**
 * Checks a request against the inspector's rules: a loopback peer (unless remote use was allowed), an allowed
 * Host (DNS rebinding: a foreign name resolving to 127.0.0.1 must not reach the page or its API), an Origin equal
 * to the page's own when a browser sends one, and no cross-site fetch metadata. Returns the refusal, if any.
 */
export function checkInspectorRequest(
  request: NeutralRequest,
  options: InspectorGuardOptions,
  /**
   * True for the OAuth redirect back from an authorization server (another origin by design): Origin and fetch
   * metadata are not checked; the sign-in's `state` authenticates it instead (`sign-in.ts`).
   */
  fromAuthorizationServer = false,
): McpLiteError | undefined {
  if (!options.allowRemote && !isLoopbackPeer(request.remoteAddress)) {
    return new McpLiteError('forbidden', 'Forbidden: the inspector answers loopback clients only');
  }
  const host = request.headers.host;
  if (!host || !(options.allowedHosts ?? LOOPBACK_NAMES).includes(hostName(host))) {
    return new McpLiteError('forbidden', 'Forbidden: Host not allowed (DNS-rebinding protection)');
  }
  if (fromAuthorizationServer) return undefined;
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}`) {
    return new McpLiteError('forbidden', 'Forbidden: cross-origin requests are refused');
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return new McpLiteError('forbidden', 'Forbidden: cross-site requests are refused');
  }
  return undefined;
}
