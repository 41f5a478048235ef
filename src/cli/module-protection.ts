import type { ToolServer } from '../core/server.js';
import type { ServerOptions } from '../create-server.js';
import { CliError } from './errors.js';

/** What the command line asks of the server, against what the module itself set. */
export interface ServerFlagsAsked {
  /** The flags given that shape the server (not where it listens), e.g. `--token`, `--rate-limit`. */
  given: string[];
  /** Bearer tokens given (`--token`, MCPLITE_TOKENS). */
  tokens: boolean;
  /** OAuth given (`--oauth-issuer`…). */
  oauth: boolean;
}

/**
 * A module that exports a server (`export default createServer({ ... })`) is served as it is: its options are its
 * own, so a flag that would shape it (auth, limits, stores) cannot apply, and is a clear error rather than
 * silently dropped. A module that exports options with its own `authenticate` or `auth` keeps it: tokens or OAuth
 * on the command line too would replace it, so that is an error as well.
 */
export function refuseLostOptions(
  module: { server?: ToolServer; serverOptions: Partial<ServerOptions>; path: string },
  asked: ServerFlagsAsked,
): void {
  if (module.server && asked.given.length > 0) {
    throw new CliError(
      `${module.path} exports a server (createServer(...)), served with its own options: ` +
        `${asked.given.join(', ')} cannot change it. Set it in createServer, or export the options instead ` +
        '(export default { tools, ...options })',
      2,
    );
  }
  const own = module.serverOptions.authenticate ?? module.serverOptions.auth;
  if (own && (asked.tokens || asked.oauth)) {
    throw new CliError(
      `${module.path} sets its own authentication (authenticate/auth): ${asked.tokens ? 'bearer tokens (--token, MCPLITE_TOKENS)' : 'OAuth flags'} ` +
        'would replace it. Drop them, or add them in the module',
      2,
    );
  }
}

/**
 * What protects a server, for its start line: who authenticates callers (the module's hook, bearer tokens,
 * OAuth) and whether middleware runs before its tools (the module's, the rate limiter). "none" says it plainly.
 */
export function protectionOf(
  server: ToolServer,
  asked: { tokens: boolean; oauth?: string | undefined; moduleAuth: boolean },
): { auth: boolean; protectedBy: string; middleware: boolean } {
  const who = [
    ...(asked.moduleAuth ? ['the module'] : []),
    ...(asked.tokens ? ['bearer tokens'] : []),
    ...(asked.oauth ? [`OAuth (${asked.oauth})`] : []),
  ];
  return {
    auth: server.authenticate !== undefined,
    protectedBy: server.authenticate ? (who.length > 0 ? who.join(' + ') : 'the module') : 'none',
    middleware: !server.pipeline.empty,
  };
}
