import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';

/** The proofs' algorithm: the one every DPoP authorization server takes (RFC 9449 §4.2; MCP's DPoP extension). */
export const DPOP_ALGORITHM = 'ES256';
/** Servers (origins) whose last `DPoP-Nonce` is kept: an authorization server and a resource or two in practice. */
const KEPT_NONCES = 16;
/** Characters of a kept nonce: a server's nonce is an opaque token, a few dozen characters. */
const NONCE_CHARS = 1024;

/**
 * A client's DPoP key (RFC 9449): one ES256 key pair per client, kept with its tokens (`OAuthRecord.dpopKey`),
 * since the tokens are bound to it (`cnf.jkt`). It signs a fresh proof for each request and remembers the nonce
 * each server last handed out (`DPoP-Nonce`), which goes into the next proof to that server.
 */
export class DpopKey {
  private readonly nonces = new Map<string, string>();

  private constructor(
    private readonly privateKey: CryptoKey,
    private readonly publicJwk: JWK,
    /** The private key as a JWK, for the token store. */
    readonly privateJwk: JWK,
  ) {}

  /** A new key pair. */
  static async generate(): Promise<DpopKey> {
    const { privateKey } = await generateKeyPair(DPOP_ALGORITHM, { extractable: true });
    return DpopKey.fromJwk(await exportJWK(privateKey));
  }

  /** The key kept in a token store. */
  static async fromJwk(privateJwk: JWK): Promise<DpopKey> {
    const { kty, crv, x, y } = privateJwk;
    if (kty !== 'EC' || crv !== 'P-256' || !x || !y || !privateJwk.d)
      throw new Error('The stored DPoP key is not an ES256 private key');
    const privateKey = (await importJWK(privateJwk, DPOP_ALGORITHM)) as CryptoKey;
    return new DpopKey(privateKey, { kty, crv, x, y }, privateJwk);
  }

  /**
   * A proof for one request (RFC 9449 §4.2): `htm` and `htu` (the URL without query and fragment), a fresh `jti`,
   * `iat` now, the server's last nonce if it gave one, and with an access token its hash `ath` (§7.1).
   */
  async proof(method: string, url: string | URL, accessToken?: string): Promise<string> {
    const target = new URL(url);
    const nonce = this.nonces.get(target.origin);
    return new SignJWT({
      htm: method.toUpperCase(),
      htu: `${target.origin}${target.pathname}`,
      ...(accessToken !== undefined
        ? { ath: createHash('sha256').update(accessToken).digest('base64url') }
        : {}),
      ...(nonce !== undefined ? { nonce } : {}),
    })
      .setProtectedHeader({ typ: 'dpop+jwt', alg: DPOP_ALGORITHM, jwk: this.publicJwk })
      .setIssuedAt()
      .setJti(randomUUID())
      .sign(this.privateKey);
  }

  /**
   * Keeps the `DPoP-Nonce` a server answered with (RFC 9449 §8, §9); true when it differs from the one the
   * request carried, so a request refused for its nonce is worth sending again.
   */
  noteNonce(url: string | URL, headers: Headers): boolean {
    return this.keepNonce(url, headers.get('dpop-nonce'));
  }

  /** `noteNonce` for a nonce that came other than in HTTP headers (a gRPC trailer). */
  keepNonce(url: string | URL, nonce: string | null | undefined): boolean {
    if (!nonce || nonce.length > NONCE_CHARS) return false;
    const origin = new URL(url).origin;
    const before = this.nonces.get(origin);
    this.nonces.delete(origin);
    this.nonces.set(origin, nonce);
    if (this.nonces.size > KEPT_NONCES) this.nonces.delete(this.nonces.keys().next().value as string);
    return before !== nonce;
  }
}

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * `next` with a DPoP proof on the requests `proved` picks (the token endpoint's), sent once more with the
 * server's nonce when it answers `use_dpop_nonce` (RFC 9449 §8). `next` answers with the body in memory
 * (`oauth-fetch.ts`), so the error is read from a clone.
 */
export function withDpopProofs(
  next: Fetch,
  key: DpopKey,
  proved: (url: URL, method: string) => boolean,
): Fetch {
  return async (url, init = {}) => {
    const target = new URL(url);
    const method = init.method ?? 'GET';
    if (!proved(target, method)) return next(url, init);
    for (let attempt = 0; ; attempt++) {
      const headers = new Headers(init.headers);
      headers.set('dpop', await key.proof(method, target));
      const res = await next(url, { ...init, headers });
      const renewed = key.noteNonce(target, res.headers);
      if (attempt > 0 || !renewed || res.status !== 400) return res;
      const answer = (await res
        .clone()
        .json()
        .catch(() => undefined)) as { error?: unknown } | undefined;
      if (answer?.error !== 'use_dpop_nonce') return res;
    }
  };
}
