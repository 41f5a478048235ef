import { networkInterfaces } from 'node:os';
import { isLoopbackHost } from '../bindings/common/host-guard.js';
import type { Command } from './commander.js';
import { repeatable } from './parse.js';

/** The Host names a loopback-bound server answers to, whatever else is allowed. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
/** Addresses that bind every interface. */
const WILDCARD = new Set(['0.0.0.0', '::', '[::]', '']);

/** What `serve` (src/serve.ts) takes to check Host and Origin on every listener (DNS-rebinding protection). */
export interface BindGuard {
  dnsRebindingProtection: true;
  allowedHosts: string[];
}

/** Adds `--allowed-hosts <names>` to a command that listens (serve, dev, proxy). */
export function addAllowedHostsFlag<C extends Command>(command: C): C {
  command.option(
    '--allowed-hosts <names>',
    "Host names (comma separated, repeatable) clients may use besides loopback and this machine's own addresses; " +
      'also env MCPLITE_ALLOWED_HOSTS (DNS-rebinding protection, on for every bind)',
    repeatable,
  );
  return command;
}

/**
 * The Host/Origin guard of a CLI listener, one rule for every bind and every command: always on. Allowed are the
 * loopback names, the address bound (with 0.0.0.0 or ::, every address of this machine's interfaces, so that a
 * client, a health probe or a scraper reaching it by address is let in), and the names given by `--allowed-hosts`
 * or MCPLITE_ALLOWED_HOSTS. A DNS-rebinding page presents a name its attacker owns, which is none of these.
 */
export function bindGuard(
  host: string,
  flag: readonly string[] | undefined,
  env: string | undefined = process.env.MCPLITE_ALLOWED_HOSTS,
): BindGuard {
  const named = [...(flag ?? []), env ?? '']
    .flatMap((list) => list.split(','))
    .map((name) => hostName(name.trim()))
    .filter((name) => name.length > 0);
  const own = WILDCARD.has(host) ? interfaceAddresses() : [hostName(host)];
  return {
    dnsRebindingProtection: true,
    allowedHosts: [...new Set([...LOOPBACK_NAMES, ...own, ...named])],
  };
}

/**
 * The warning printed (on stderr) for a bind beyond loopback: other machines can reach the server now, and only
 * the Host names listed are let in. Undefined for a loopback bind.
 */
export function beyondLoopbackWarning(host: string, guard: BindGuard): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  const names = guard.allowedHosts.filter((name) => !LOOPBACK_NAMES.includes(name));
  return (
    `mcplite: warning: listening on ${host}, beyond loopback: other machines can reach this server. ` +
    `Requests must name one of these hosts (DNS-rebinding protection): ${[...LOOPBACK_NAMES, ...names].join(', ')}; ` +
    'add the names clients use with --allowed-hosts <a,b> (or MCPLITE_ALLOWED_HOSTS)\n'
  );
}

/** A Host header's name as the guard compares it: lower case, IPv6 in brackets, no port. */
function hostName(name: string): string {
  const lower = name.toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colons = lower.split(':').length - 1;
  if (colons === 1) return lower.slice(0, lower.indexOf(':'));
  return colons > 1 ? `[${lower}]` : lower;
}

function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((info) => hostName(info.address.replace(/%.*$/, '')));
}
