import { McpLiteError } from '../errors.js';
import { boundedJson } from './issuer-discovery.js';
import { TokenRejected } from './jwt-verifier.js';

/**
 * Opaque access tokens by RFC 7662 introspection, the resource server authenticating with its own client
 * credentials (`client_secret_basic`). Answers are cached by a digest of the token (the token itself is kept
 * nowhere): active ones briefly and never past the token's own expiry, refused ones for a shorter while, so that a
 * caller repeating a bogus token does not make the authorization server answer it again each time. Requests to the
 * authorization server are bounded in number: callers presenting one token share one request, and past the bound
 * a new token is answered `unavailable` at once instead of queueing without end.
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
  /** Longest a refused token's answer is reused (0: not cached). */
  negativeCacheTtlMs: number;
  /** Most answers cached at once, of each kind; past it new answers are not cached (none is evicted for them). */
  maxCacheEntries: number;
  /** Most introspection requests in flight at once. */
  maxInFlight: number;
  /** Longest one introspection request may take, its answer's body included. */
  timeoutMs: number;
  clockSkewSeconds: number;
}

/** An introspection answer (RFC 7662 section 2.2), the fields this server reads. */
export type IntrospectionClaims = Record<string, unknown> & { active: true };

interface CacheEntry<T> {
  value: T;
  until: number;
}

/** Asks the authorization server about opaque tokens. */
export class Introspector {
  private readonly cache = new Map<string, CacheEntry<IntrospectionClaims>>();
  /** Why each recently refused token was refused. */
  private readonly refused = new Map<string, CacheEntry<string>>();
  private readonly inFlight = new Map<string, Promise<IntrospectionClaims>>();
  private readonly authorization: string;

  constructor(private readonly options: IntrospectionOptions) {
    // RFC 6749 section 2.3.1: each part form-encoded before the Basic encoding.
    const user = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`;
    this.authorization = `Basic ${btoa(user)}`;
  }

  /** The active token's claims, or a TokenRejected. */
  async introspect(token: string): Promise<IntrospectionClaims> {
    const key = await digest(token);
    const claims = fresh(this.cache, key);
    if (claims) return claims;
    const why = fresh(this.refused, key);
    if (why !== undefined) throw new TokenRejected(why);
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const max = this.options.maxInFlight;
    if (this.inFlight.size >= max) {
      throw new McpLiteError(
        'unavailable',
        `Too many token introspections in flight (at most ${max}): retry shortly`,
        { limit: max },
      );
    }
    const asked = this.introspectNow(key, token).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, asked);
    return asked;
  }

  private async introspectNow(key: string, token: string): Promise<IntrospectionClaims> {
    const answer = await this.ask(token);
    const now = Date.now();
    let claims: IntrospectionClaims;
    try {
      claims = this.check(answer);
    } catch (err) {
      const ttl = this.options.negativeCacheTtlMs;
      if (ttl > 0) this.remember(this.refused, key, { value: (err as Error).message, until: now + ttl });
      throw err;
    }
    const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : Number.POSITIVE_INFINITY;
    this.remember(this.cache, key, { value: claims, until: Math.min(now + this.options.cacheTtlMs, exp) });
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
      signal: AbortSignal.timeout(this.options.timeoutMs),
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

  private remember<T>(cache: Map<string, CacheEntry<T>>, key: string, entry: CacheEntry<T>): void {
    if (cache.size >= this.options.maxCacheEntries) {
      const now = Date.now();
      for (const [k, e] of cache) if (e.until <= now) cache.delete(k);
      if (cache.size >= this.options.maxCacheEntries) return;
    }
    cache.set(key, entry);
  }
}

/** The cached value under `key` while it is fresh; a stale entry is dropped. */
function fresh<T>(cache: Map<string, CacheEntry<T>>, key: string): T | undefined {
  const entry = cache.get(key);
  if (!entry) return undefined;
  if (entry.until > Date.now()) return entry.value;
  cache.delete(key);
  return undefined;
}

/** SHA-256 of the token, base64url: the cache key (WebCrypto, so this runs on Workers as on Node). */
async function digest(token: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
