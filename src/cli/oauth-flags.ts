import type { Authenticate } from '../core/auth.js';
import { oauthResourceServer } from '../core/oauth/resource-server.js';
import { type Command, Option } from './commander.js';
import { CliError } from './errors.js';
import { repeatable } from './parse.js';

/** The OAuth flags of `mcplite serve` (docs/auth.md). */
export interface OAuthFlags {
  /** `--oauth-issuer <url>`, repeatable: the trusted issuers. */
  oauthIssuer?: string[];
  /** `--oauth-resource <uri>`: this server's resource identifier, the audience tokens must name. */
  oauthResource?: string;
  /** `--oauth-introspection <url>`: introspect opaque tokens there (RFC 7662). */
  oauthIntrospection?: string;
  /** `--oauth-dpop allowed|required`: advertise DPoP (RFC 9449); `required` takes DPoP-bound tokens only. */
  oauthDpop?: 'allowed' | 'required';
  /** `--oauth-dpop-nonce`: DPoP proofs must carry a nonce the server gives (secret: MCPLITE_DPOP_NONCE_SECRET). */
  oauthDpopNonce?: boolean;
}

/** Adds `--oauth-issuer`, `--oauth-resource`, `--oauth-introspection` and the DPoP flags to `serve`. */
export function addOAuthFlags(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--oauth-issuer <url>',
        'accept OAuth access tokens (JWT) from this issuer; repeat to trust several (needs --oauth-resource)',
      ).argParser(repeatable),
    )
    .option(
      '--oauth-resource <uri>',
      'this server as an OAuth protected resource (e.g. https://api.example.com/mcp): the audience tokens must name',
    )
    .option(
      '--oauth-introspection <url>',
      'introspect opaque tokens here (RFC 7662), as the client MCPLITE_OAUTH_CLIENT_ID / MCPLITE_OAUTH_CLIENT_SECRET',
    )
    .addOption(
      new Option(
        '--oauth-dpop <mode>',
        'DPoP-bound tokens (RFC 9449): "allowed" beside Bearer ones, or "required" (bound tokens only)',
      ).choices(['allowed', 'required']),
    )
    .option(
      '--oauth-dpop-nonce',
      'DPoP proofs must carry a nonce this server gives (instances share MCPLITE_DPOP_NONCE_SECRET)',
    );
}

/**
 * The OAuth hook the flags ask for, or undefined without any. The introspection client's credentials come from
 * the environment only: flags show up in `ps`.
 */
export function oauthFromFlags(
  flags: OAuthFlags,
  env: Readonly<Record<string, string | undefined>>,
): Authenticate | undefined {
  const issuers = flags.oauthIssuer ?? [];
  if (issuers.length === 0 && !flags.oauthIntrospection) {
    for (const [given, flag] of [
      [flags.oauthResource, '--oauth-resource'],
      [flags.oauthDpop, '--oauth-dpop'],
      [flags.oauthDpopNonce, '--oauth-dpop-nonce'],
    ] as const) {
      if (given) throw new CliError(`${flag} goes with --oauth-issuer or --oauth-introspection`);
    }
    return undefined;
  }
  if (!flags.oauthResource) {
    throw new CliError(
      'OAuth needs --oauth-resource <uri>: the URL clients reach this server at (the token audience)',
    );
  }
  let introspection: Parameters<typeof oauthResourceServer>[0]['introspection'];
  if (flags.oauthIntrospection) {
    const clientId = env.MCPLITE_OAUTH_CLIENT_ID;
    const clientSecret = env.MCPLITE_OAUTH_CLIENT_SECRET;
    if (!clientId || !clientSecret) {
      throw new CliError(
        '--oauth-introspection needs MCPLITE_OAUTH_CLIENT_ID and MCPLITE_OAUTH_CLIENT_SECRET in the environment',
      );
    }
    introspection = { endpoint: flags.oauthIntrospection, clientId, clientSecret };
  }
  if (flags.oauthDpopNonce && !flags.oauthDpop)
    throw new CliError('--oauth-dpop-nonce goes with --oauth-dpop');
  const nonceSecret = env.MCPLITE_DPOP_NONCE_SECRET;
  const nonce = flags.oauthDpopNonce ? (nonceSecret ? { secret: nonceSecret } : true) : undefined;
  try {
    return oauthResourceServer({
      ...(issuers.length > 0 ? { issuer: issuers } : {}),
      resource: flags.oauthResource,
      ...(introspection ? { introspection } : {}),
      ...(flags.oauthDpop ? { dpop: { mode: flags.oauthDpop, ...(nonce ? { nonce } : {}) } } : {}),
    });
  } catch (err) {
    throw new CliError(`Invalid OAuth settings: ${(err as Error).message}`, 2, { cause: err });
  }
}
