import { type ErrorCode, McpLiteError } from '../core/errors.js';

/** A `WWW-Authenticate` challenge as the client reports it (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1). */
export interface AuthChallenge {
  /** `Bearer`, `Basic`, … */
  scheme: string;
  /** RFC 6750's `error` (`invalid_token`, `insufficient_scope`, …). */
  error?: string;
  error_description?: string;
  /** RFC 9728: where the protected resource's metadata (and so its authorization servers) is. */
  resource_metadata?: string;
  /** The scopes the resource wants. */
  scope?: string;
  realm?: string;
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const PARAM = new RegExp(`\\s*(${TOKEN})\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^,\\s]*))\\s*,?`, 'y');
const SCHEME = new RegExp(`\\s*,?\\s*(${TOKEN})(?:\\s+|\\s*,|$)`, 'y');
/** Challenges read from one header: a server sends one or two (RFC 9449 §7.1); the rest is not read. */
const MAX_CHALLENGES = 8;
const KEPT = ['error', 'error_description', 'resource_metadata', 'scope', 'realm'] as const;

/**
 * Every challenge of a `WWW-Authenticate` value (RFC 9110 §11.6.1: `Bearer …, DPoP …`), each with the parameters
 * a client acts on. Reading stops at what is not a challenge or a parameter (a token68 such as `Basic abc==`).
 */
export function parseChallenges(header: string | null): AuthChallenge[] {
  const challenges: AuthChallenge[] = [];
  if (!header) return challenges;
  let at = 0;
  while (at < header.length && challenges.length < MAX_CHALLENGES) {
    SCHEME.lastIndex = at;
    const scheme = SCHEME.exec(header);
    if (!scheme) break;
    const challenge: AuthChallenge = { scheme: scheme[1]! };
    challenges.push(challenge);
    at = SCHEME.lastIndex;
    while (at < header.length) {
      PARAM.lastIndex = at;
      const param = PARAM.exec(header);
      if (!param) break;
      at = PARAM.lastIndex;
      const name = param[1]!.toLowerCase() as (typeof KEPT)[number];
      const value = param[2] !== undefined ? param[2].replace(/\\(.)/g, '$1') : (param[3] ?? '');
      if (KEPT.includes(name) && challenge[name] === undefined) challenge[name] = value;
    }
  }
  return challenges;
}

/**
 * The challenge a client acts on, undefined for a value that has none: the one of `scheme` (the scheme the refused
 * request used: a DPoP request's `use_dpop_nonce` rides in the `DPoP` challenge, RFC 9449 §7.1, while a resource
 * that takes both lists `Bearer` first), else the first. Only `resource_metadata` comes from another challenge,
 * when the picked one has none and another OAuth scheme (`Bearer`, `DPoP`) of the same resource names it; other
 * parameters of a second challenge (`Bearer …, Basic realm=…`) are not mixed in.
 */
export function parseChallenge(header: string | null, scheme?: string): AuthChallenge | undefined {
  const all = parseChallenges(header);
  const wanted = scheme?.toLowerCase();
  const picked = all.find((c) => c.scheme.toLowerCase() === wanted) ?? all[0];
  if (!picked || picked.resource_metadata !== undefined || !isOAuthScheme(picked.scheme)) return picked;
  const metadata = all.find((c) => isOAuthScheme(c.scheme) && c.resource_metadata !== undefined);
  return metadata ? { ...picked, resource_metadata: metadata.resource_metadata } : picked;
}

function isOAuthScheme(scheme: string): boolean {
  return /^(bearer|dpop)$/i.test(scheme);
}

/**
 * The error of an HTTP 401 or 403, whatever its body (a JSON-RPC error, an OAuth error object, a page):
 * `unauthenticated` or `forbidden`, with the challenge in `data.challenge`; undefined for any other status.
 * Read before the body, so an OAuth `{"error": "invalid_token"}` is never taken for a JSON-RPC error.
 */
export function authError(status: number, headers: Headers, text: string): McpLiteError | undefined {
  if (status !== 401 && status !== 403) return undefined;
  const code: ErrorCode = status === 401 ? 'unauthenticated' : 'forbidden';
  const challenge = parseChallenge(headers.get('www-authenticate'));
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: the status and the challenge say it all.
  }
  // A JSON-RPC error (-32002/-32003 from mcplite), a Webtools envelope, or an OAuth error object.
  const rpc = isObject(body.error) ? body.error : undefined;
  const described =
    (typeof rpc?.message === 'string' && rpc.message) ||
    (typeof body.error_description === 'string' && body.error_description) ||
    challenge?.error_description ||
    (typeof body.error === 'string' && body.error) ||
    challenge?.error ||
    (status === 401 ? 'Authentication required' : 'Forbidden');
  return new McpLiteError(code, `HTTP ${status}: ${described}`, {
    ...(isObject(rpc?.data) ? rpc.data : {}),
    http_status: status,
    ...(challenge ? { challenge } : {}),
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
