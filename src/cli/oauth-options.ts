import { oauthServer } from '../client/detect.js';
import type { OAuthOptions } from '../client/oauth.js';
import { type Command, Option } from './commander.js';
import { CliError } from './errors.js';
import { LoopbackCatcher } from './loopback.js';
import { repeatable } from './parse.js';
import { fileOAuthStore } from './token-file.js';

/** The sign-in flags every command that reaches a server takes. */
export interface OAuthFlags {
  /** False with `--no-browser`: the URL is printed, not opened. */
  browser?: boolean;
  clientId?: string;
  /**
   * `--oauth-issuer <url>`, repeatable: the authorization server(s) to sign in with. Needed with a client secret
   * (`$MCPLITE_CLIENT_SECRET`), which goes to no other; without a secret it restricts where the sign-in may go.
   */
  oauthIssuer?: string[];
  scope?: string;
  /**
   * `--oauth-resource <url>`: the protected resource whose token the target carries, for a gRPC target the
   * server's HTTP URL (its `mcplite login` record is used, refreshed through its authorization server).
   */
  oauthResource?: string;
  /**
   * `--grant <grant>`: `authorization_code` (the default: a user in a browser), `client_credentials` (with
   * `$MCPLITE_CLIENT_SECRET`), `jwt-bearer` (the workload's JWT in `$MCPLITE_OAUTH_ASSERTION`, read at each grant)
   * or `enterprise` (the user's ID token in `$MCPLITE_IDP_ID_TOKEN`, exchanged at `--idp-token-endpoint`).
   */
  grant?: NonNullable<OAuthOptions['grant']>;
  /** `--idp-issuer`, `--idp-token-endpoint`, `--idp-client-id`: the identity provider of `--grant enterprise`. */
  idpIssuer?: string;
  idpTokenEndpoint?: string;
  idpClientId?: string;
  /** `--dpop` / `--no-dpop`: DPoP-bound tokens always / never (default: where the server and its authorization server both take them). */
  dpop?: boolean;
}

/** The grants `--grant` takes. */
const GRANTS = ['authorization_code', 'client_credentials', 'jwt-bearer', 'enterprise'] as const;

/** Adds the sign-in flags to a command. */
export function withOAuthFlags(command: Command): Command {
  return command
    .option('--no-browser', 'print the sign-in URL instead of opening a browser')
    .option('--client-id <id>', 'OAuth client id registered for mcplite (default: register dynamically)')
    .addOption(oauthIssuerOption())
    .option('--scope <scope>', 'OAuth scope to ask for when the server names none')
    .option(
      '--oauth-resource <url>',
      "sign in to this resource instead of the target: for grpc://, the server's HTTP URL (its login serves both)",
    )
    .addOption(
      new Option(
        '--grant <grant>',
        'the OAuth grant: jwt-bearer reads $MCPLITE_OAUTH_ASSERTION, enterprise $MCPLITE_IDP_ID_TOKEN (default: a browser sign-in)',
      ).choices(GRANTS),
    )
    .option('--idp-issuer <url>', '--grant enterprise: the identity provider (issuer URL)')
    .option('--idp-token-endpoint <url>', "--grant enterprise: the identity provider's token endpoint")
    .option('--idp-client-id <id>', "--grant enterprise: this client's id at the identity provider")
    .option(
      '--dpop',
      'ask for DPoP-bound tokens (default: where the server and its authorization server both take them)',
    )
    .option('--no-dpop', 'never use DPoP');
}

/** `--oauth-issuer <url>` (repeatable), for the commands that sign in (`inspect` too). */
export function oauthIssuerOption(): Option {
  return new Option(
    '--oauth-issuer <url>',
    'sign in only with this authorization server (repeatable); required with $MCPLITE_CLIENT_SECRET, sent nowhere else',
  ).argParser(repeatable);
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
 * The OAuth options the sign-in flags set: client id (with `$MCPLITE_CLIENT_SECRET` for a confidential client,
 * which needs `--oauth-issuer`), the issuers, scope and the resource signed in to, the grant with what it reads
 * from the environment (`grantFlagOptions`), DPoP. `mcplite inspect` shares them with `cliOAuth`.
 */
export function oauthFlagOptions(
  flags: Omit<OAuthFlags, 'browser'>,
): Pick<
  OAuthOptions,
  'clientId' | 'clientSecret' | 'issuer' | 'scope' | 'resource' | 'grant' | 'assertion' | 'idp' | 'dpop'
> {
  const secret = flags.clientId ? process.env.MCPLITE_CLIENT_SECRET : undefined;
  const issuers = flags.oauthIssuer ?? [];
  if (secret && issuers.length === 0)
    throw new CliError(
      '$MCPLITE_CLIENT_SECRET is sent only to the authorization server named with it: add --oauth-issuer <url>',
      2,
    );
  return {
    ...(flags.clientId ? { clientId: flags.clientId } : {}),
    ...(secret ? { clientSecret: secret } : {}),
    ...(issuers.length > 0 ? { issuer: issuers } : {}),
    ...(flags.scope ? { scope: flags.scope } : {}),
    ...(flags.oauthResource ? { resource: oauthServer(flags.oauthResource) } : {}),
    ...grantFlagOptions(flags),
    ...(flags.dpop !== undefined ? { dpop: flags.dpop } : {}),
  };
}

/**
 * `--grant` and what it needs. The assertion and the ID token come from the environment, never from flags
 * (flags show in `ps`), and are read at each grant: a workload's token rotates, a user's ID token expires.
 */
function grantFlagOptions(
  flags: Omit<OAuthFlags, 'browser'>,
): Pick<OAuthOptions, 'grant' | 'assertion' | 'idp'> {
  const { grant } = flags;
  if (grant === undefined || grant === 'authorization_code') return grant ? { grant } : {};
  if (!flags.clientId) throw new CliError(`--grant ${grant} needs --client-id`, 2);
  if (grant === 'client_credentials') {
    if (!process.env.MCPLITE_CLIENT_SECRET)
      throw new CliError('--grant client_credentials needs $MCPLITE_CLIENT_SECRET', 2);
    return { grant };
  }
  if (grant === 'jwt-bearer') return { grant, assertion: fromEnvironment('MCPLITE_OAUTH_ASSERTION') };
  const { idpIssuer, idpTokenEndpoint, idpClientId } = flags;
  if (!idpIssuer || !idpTokenEndpoint || !idpClientId)
    throw new CliError('--grant enterprise needs --idp-issuer, --idp-token-endpoint and --idp-client-id', 2);
  return {
    grant,
    idp: {
      issuer: idpIssuer,
      tokenEndpoint: idpTokenEndpoint,
      clientId: idpClientId,
      idToken: fromEnvironment('MCPLITE_IDP_ID_TOKEN'),
    },
  };
}

/** A credential read from the environment when a grant needs it; its absence is said by name, then. */
function fromEnvironment(variable: string): () => string {
  if (!process.env[variable]) throw new CliError(`The grant needs $${variable} in the environment`, 2);
  return () => {
    const value = process.env[variable];
    if (!value) throw new CliError(`$${variable} is no longer set`, 2);
    return value;
  };
}
