import type { Principal } from './auth.js';

/**
 * The key under which per-caller state and limits are counted (promise and session quotas, rate-limit buckets):
 * the authenticated principal's id, else the peer's address, else one shared anonymous bucket. Principals and
 * addresses live in separate namespaces so that a principal named like an address cannot share its quota.
 */
export function callerKey(caller: {
  principal?: Principal | undefined;
  remoteAddress?: string | undefined;
}): string {
  if (caller.principal) return `principal:${caller.principal.id}`;
  if (caller.remoteAddress) return `addr:${caller.remoteAddress}`;
  return 'anonymous';
}
