import { McpLiteError } from './errors.js';

/**
 * Bits of an IPv6 address that name one unauthenticated caller by default. A /64 is the smallest block a site is
 * given (RFC 6177), so counting whole addresses would hand one client 2^64 identities.
 */
export const DEFAULT_IPV6_CALLER_PREFIX = 64;

const MAPPED_IPV4 = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;
const DOTTED_IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * The part of a peer address that per-caller bounds count: an IPv4 address whole, an IPv6 address by its first
 * `ipv6PrefixBits` bits (as `<prefix>/<bits>`, canonical, so every spelling of one network is one key), and an
 * IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, what a dual-stack socket reports for an IPv4 peer) as the IPv4
 * address it carries. Anything that is not an IP address (a Unix socket's path, "unknown") is kept as it is.
 */
export function addressKey(address: string, ipv6PrefixBits: number = DEFAULT_IPV6_CALLER_PREFIX): string {
  if (!address.includes(':')) return address;
  // Dual-stack servers see every IPv4 peer this way: answered without parsing, as the common case.
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped) return mapped[1]!;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  if (groups[5] === 0xffff && groups.slice(0, 5).every((g) => g === 0)) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  const bits = Math.min(128, Math.max(0, ipv6PrefixBits));
  for (let i = 0; i < 8; i++) {
    const kept = Math.min(16, Math.max(0, bits - i * 16));
    groups[i] = kept === 0 ? 0 : groups[i]! & ((0xffff << (16 - kept)) & 0xffff);
  }
  const text = compressed(groups);
  return bits === 128 ? text : `${text}/${bits}`;
}

/** Throws `invalid_request` unless `bits` is a whole number of prefix bits (0 to 128). */
export function checkIpv6Prefix(bits: number): void {
  if (!Number.isInteger(bits) || bits < 0 || bits > 128) {
    throw new McpLiteError('invalid_request', 'ipv6CallerPrefix must be a whole number from 0 to 128');
  }
}

/** The eight 16-bit groups of an IPv6 address (zone id ignored), or undefined when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  const zone = address.indexOf('%');
  const bare = zone >= 0 ? address.slice(0, zone) : address;
  const halves = bare.split('::');
  if (halves.length > 2) return undefined;
  const head = groupsOf(halves[0]!, halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1]!, true) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  return [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
}

/** The groups of one side of `::`; the last side may end in a dotted IPv4 address (two groups). */
function groupsOf(side: string, mayEndInIpv4: boolean): number[] | undefined {
  if (side === '') return [];
  const parts = side.split(':');
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (HEX_GROUP.test(part)) {
      groups.push(Number.parseInt(part, 16));
      continue;
    }
    const dotted = i === parts.length - 1 && mayEndInIpv4 ? DOTTED_IPV4.exec(part) : null;
    if (!dotted) return undefined;
    const bytes = dotted.slice(1).map(Number);
    if (bytes.some((b) => b > 255)) return undefined;
    groups.push((bytes[0]! << 8) | bytes[1]!, (bytes[2]! << 8) | bytes[3]!);
  }
  return groups;
}

/** RFC 5952 text: lowercase hex, the longest run of two or more zero groups (the first of equals) as `::`. */
function compressed(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
