import { boundedJson, OAUTH_FETCH_TIMEOUT_MS } from './issuer-discovery.js';
import { TokenRejected } from './jwt-verifier.js';

/**
 * Opaque access tokens by RFC 7662 introspection, the resource server authenticating with its own client
 * credentials (`client_secret_basic`). Active answers are cached briefly, keyed by a digest of the token (the token
 * itself is kept nowhere), never past the token's own expiry; inactive ones are not cached, so a token that was
 * just issued is not refused for a while.
 */

/** What the introspector is told. */
export interface IntrospectionOptions {
  endpoint: string;
  clientId: string;
  clientSecret: string;
  /** The resource tokens must be minted for (`aud`). */
  audience: string;
  /** Issuers whose tokens are taken when the answer names one. */
  issuers: readonly string[];
  /** Longest an active answer is reused. */
  cacheTtlMs: number;
  /** Most answers cached at once; past it new answers are not cached (none is evicted for them). */
  maxCacheEntries: number;
  clockSkewSeconds: number;
}

/** An introspection answer (RFC 7662 section 2.2), the fields this server reads. */
export type IntrospectionClaims = Record<string, unknown> & { active: true };

interface CacheEntry {
  claims: IntrospectionClaims;
  until: number;
}

/** Asks the authorization server about opaque tokens. */
export class Introspector {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly authorization: string;

  constructor(private readonly options: IntrospectionOptions) {
    // RFC 6749 section 2.3.1: each part form-encoded before the Basic encoding.
    const user = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`;
    this.authorization = `Basic ${btoa(user)}`;
  }

  /** The active token's claims, or a TokenRejected. */
  async introspect(token: string): Promise<IntrospectionClaims> {
    const key = await digest(token);
    const now = Date.now();
    const cached = this.cache.get(key);
    if (cached && cached.until > now) return cached.claims;
    if (cached) this.cache.delete(key);
    const claims = this.check(await this.ask(token));
    const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : Number.POSITIVE_INFINITY;
    this.remember(key, { claims, until: Math.min(now + this.options.cacheTtlMs, exp) });
    return claims;
  }

  private async ask(token: string): Promise<Record<string, unknown>> {
    const response = await fetch(this.options.endpoint, {
      method: 'POST',
      headers: {
        authorization: this.authorization,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      signal: AbortSignal.timeout(OAUTH_FETCH_TIMEOUT_MS),
      redirect: 'error',
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`introspection answered ${response.status}`);
    }
    const answer = await boundedJson(response, 64 * 1024);
    if (!answer || typeof answer !== 'object') throw new Error('introspection answered no object');
    return answer as Record<string, unknown>;
  }

  /** RFC 7662 leaves the checks to the resource server: active, unexpired, for this resource, from a trusted issuer. */
  private check(answer: Record<string, unknown>): IntrospectionClaims {
    if (answer.active !== true) throw new TokenRejected('inactive token');
    const now = Date.now() / 1000;
    const skew = this.options.clockSkewSeconds;
    if (typeof answer.exp === 'number' && answer.exp + skew <= now) throw new TokenRejected('expired');
    if (typeof answer.nbf === 'number' && answer.nbf - skew > now) throw new TokenRejected('not yet valid');
    const aud = typeof answer.aud === 'string' ? [answer.aud] : Array.isArray(answer.aud) ? answer.aud : [];
    if (!aud.includes(this.options.audience)) throw new TokenRejected('token for another audience');
    if (
      typeof answer.iss === 'string' &&
      this.options.issuers.length > 0 &&
      !this.options.issuers.includes(answer.iss)
    ) {
      throw new TokenRejected('untrusted issuer');
    }
    if (answer.token_type !== undefined && String(answer.token_type).toLowerCase() === 'refresh_token') {
      throw new TokenRejected('a refresh token');
    }
    return answer as IntrospectionClaims;
  }

  private remember(key: string, entry: CacheEntry): void {
    if (this.cache.size >= this.options.maxCacheEntries) {
      const now = Date.now();
      for (const [k, e] of this.cache) if (e.until <= now) this.cache.delete(k);
      if (this.cache.size >= this.options.maxCacheEntries) return;
    }
    this.cache.set(key, entry);
  }
}

/** SHA-256 of the token, base64url: the cache key (WebCrypto, so this runs on Workers as on Node). */
async function digest(token: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
