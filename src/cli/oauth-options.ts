import type { Command } from 'commander';
import { oauthServer } from '../client/detect.js';
import type { OAuthOptions } from '../client/oauth.js';
import { LoopbackCatcher } from './loopback.js';
import { fileOAuthStore } from './token-file.js';

/** The sign-in flags every command that reaches a server takes. */
export interface OAuthFlags {
  /** False with `--no-browser`: the URL is printed, not opened. */
  browser?: boolean;
  clientId?: string;
  scope?: string;
  /**
   * `--oauth-resource <url>`: the protected resource whose token the target carries, for a gRPC target the
   * server's HTTP URL (its `mcplite login` record is used, refreshed through its authorization server).
   */
  oauthResource?: string;
}

/** Adds the sign-in flags to a command. */
export function withOAuthFlags(command: Command): Command {
  return command
    .option('--no-browser', 'print the sign-in URL instead of opening a browser')
    .option('--client-id <id>', 'OAuth client id registered for mcplite (default: register dynamically)')
    .option('--scope <scope>', 'OAuth scope to ask for when the server names none')
    .option(
      '--oauth-resource <url>',
      "sign in to this resource instead of the target: for grpc://, the server's HTTP URL (its login serves both)",
    );
}

/**
 * OAuth as the CLI does it: tokens in the user's token file (`token-file.ts`), the browser opened (or the URL
 * printed) and the redirect caught on a loopback port (RFC 8252). The client secret of a confidential client
 * comes from `$MCPLITE_CLIENT_SECRET`, never from a flag (flags show in `ps`). `close` stops the catcher.
 */
export function cliOAuth(flags: OAuthFlags, signal?: AbortSignal): { oauth: OAuthOptions; close(): void } {
  const catcher = new LoopbackCatcher();
  return {
    oauth: {
      store: fileOAuthStore(),
      redirectUrl: () => catcher.redirectUrl(),
      onAuthorizationUrl: (url) => catcher.authorize(url, flags.browser !== false, signal),
      clientName: 'mcplite CLI',
      ...oauthFlagOptions(flags),
    },
    close: () => catcher.close(),
  };
}

/**
 * The OAuth options the sign-in flags set: client id (with `$MCPLITE_CLIENT_SECRET` for a confidential client),
 * scope and the resource signed in to. `mcplite inspect` shares them with `cliOAuth`.
 */
export function oauthFlagOptions(
  flags: Omit<OAuthFlags, 'browser'>,
): Pick<OAuthOptions, 'clientId' | 'clientSecret' | 'scope' | 'resource'> {
  const secret = process.env.MCPLITE_CLIENT_SECRET;
  return {
    ...(flags.clientId ? { clientId: flags.clientId } : {}),
    ...(flags.clientId && secret ? { clientSecret: secret } : {}),
    ...(flags.scope ? { scope: flags.scope } : {}),
    ...(flags.oauthResource ? { resource: oauthServer(flags.oauthResource) } : {}),
  };
}
