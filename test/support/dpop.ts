/**
 * DPoP (RFC 9449) as a client makes it, for the resource server tests: a key pair, proofs signed with it by `jose`
 * (SignJWT, the public key exported into the header), and a DPoP-bound access token from a real authorization
 * server (oidc-provider, test/support/oidc-issuer.ts) by the client credentials grant with a proof.
 */
import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { MACHINE_CLIENT } from './oidc-issuer.js';

/** A client's DPoP key. */
export interface DpopKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
  alg: string;
}

/** A new key (ES256 unless told). */
export async function dpopKey(alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey: privateKey as CryptoKey, publicJwk: await exportJWK(publicKey), alg };
}

/** What a proof says; each field can be set wrong on purpose. */
export interface ProofClaims {
  htm: string;
  htu: string;
  /** The access token whose hash goes in `ath`; none at the token endpoint. */
  accessToken?: string;
  jti?: string;
  nonce?: string;
  /** Seconds since the epoch. Default now. */
  iat?: number;
  /** Header overrides (typ, alg, a jwk other than the signing key's). */
  header?: Record<string, unknown>;
}

/** A DPoP proof signed with `key`. */
export function proof(key: DpopKey, claims: ProofClaims): Promise<string> {
  const payload: Record<string, unknown> = {
    htm: claims.htm,
    htu: claims.htu,
    jti: claims.jti ?? randomUUID(),
    iat: claims.iat ?? Math.floor(Date.now() / 1000),
  };
  if (claims.accessToken !== undefined) {
    payload.ath = createHash('sha256').update(claims.accessToken).digest('base64url');
  }
  if (claims.nonce !== undefined) payload.nonce = claims.nonce;
  return new SignJWT(payload)
    .setProtectedHeader({ typ: 'dpop+jwt', alg: key.alg, jwk: key.publicJwk, ...claims.header } as never)
    .sign(key.privateKey);
}

/**
 * A DPoP-bound access token for `resource` from the issuer's token endpoint (client credentials with a proof of
 * `key`); the answer's `token_type` must say DPoP.
 */
export async function boundToken(
  issuer: string,
  key: DpopKey,
  options: { resource: string; scope?: string; client?: { clientId: string; clientSecret: string } },
): Promise<string> {
  const client = options.client ?? MACHINE_CLIENT;
  const tokenEndpoint = `${issuer}/token`;
  const body = new URLSearchParams({ grant_type: 'client_credentials', resource: options.resource });
  if (options.scope) body.set('scope', options.scope);
  const res = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: {
      authorization: `Basic ${btoa(`${client.clientId}:${client.clientSecret}`)}`,
      'content-type': 'application/x-www-form-urlencoded',
      dpop: await proof(key, { htm: 'POST', htu: tokenEndpoint }),
    },
    body,
  });
  const json = (await res.json()) as { access_token?: string; token_type?: string; error?: string };
  if (!json.access_token || json.token_type !== 'DPoP') {
    throw new Error(`DPoP token request failed: ${JSON.stringify(json)}`);
  }
  return json.access_token;
}

/** The `Authorization` and `DPoP` headers of one request with a bound token. */
export async function dpopHeaders(
  key: DpopKey,
  token: string,
  htm: string,
  htu: string,
  extra: Partial<ProofClaims> = {},
): Promise<Record<string, string>> {
  return {
    authorization: `DPoP ${token}`,
    dpop: await proof(key, { htm, htu, accessToken: token, ...extra }),
  };
}
