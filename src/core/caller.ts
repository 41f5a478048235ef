import { addressKey, DEFAULT_IPV6_CALLER_PREFIX } from './address-key.js';
import type { Principal } from './auth.js';

/**
 * The key under which per-caller state and limits are counted (promise and session quotas, rate-limit buckets,
 * connections, streams and calls in flight): the authenticated principal's id, else the peer's address as
 * `addressKey` counts it (IPv4 whole, IPv6 by its first `ipv6PrefixBits` bits, default 64), else one shared
 * anonymous bucket. Principals and addresses live in separate namespaces so that a principal named like an
 * address cannot share its quota. A server's own bindings call it through `ToolServer.callerKey`, which applies
 * the server's `ipv6CallerPrefix`.
 */
export function callerKey(
  caller: {
    principal?: Principal | undefined;
    remoteAddress?: string | undefined;
  },
  ipv6PrefixBits: number = DEFAULT_IPV6_CALLER_PREFIX,
): string {
  if (caller.principal) return `principal:${caller.principal.id}`;
  if (caller.remoteAddress) return `addr:${addressKey(caller.remoteAddress, ipv6PrefixBits)}`;
  return 'anonymous';
}
