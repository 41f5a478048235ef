import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NeutralRequest } from '../core/http.js';

/**
 * The header that carries the per-run token on a scripted API request; the page sends it too (with the word
 * `page`, its cookie being the credential), because a custom header forces a CORS preflight that is never granted.
 */
export const TOKEN_HEADER = 'x-mcplite-inspector';
/** The query parameter of the URL the CLI prints and opens: the one way the token reaches a browser. */
export const TOKEN_PARAMETER = 'token';

/** What a request proved: nothing, the token (header or URL), or the cookie the token was exchanged for. */
export type Credential = 'none' | 'header' | 'url' | 'cookie';

/**
 * The inspector's secrets, as Jupyter keeps them: the token travels only in the URL printed for the operator (and in
 * scripts' headers); a browser that brings it gets an HttpOnly, SameSite=Strict cookie instead, so the page itself
 * never carries a secret another local user could read by fetching it.
 */
export class InspectorCredentials {
  /** The cookie's value: a secret of its own, so a leaked cookie is not the token printed in logs and history. */
  private readonly session = randomBytes(16).toString('base64url');

  constructor(
    /** The per-run token. */
    readonly token: string,
    /** Where the page is mounted, with both slashes. */
    private readonly mountPath: string,
  ) {}

  /** How this request proves it may use the inspector, if it does. Every comparison takes constant time. */
  credential(request: NeutralRequest): Credential {
    const cookie = cookieValue(request.headers.cookie, cookieName(request));
    if (cookie !== undefined && sameSecret(cookie, this.session)) return 'cookie';
    const header = request.headers[TOKEN_HEADER];
    if (header !== undefined && sameSecret(header, this.token)) return 'header';
    const given = new URLSearchParams(request.query ?? '').get(TOKEN_PARAMETER);
    if (given !== null && sameSecret(given, this.token)) return 'url';
    return 'none';
  }

  /**
   * The Set-Cookie that replaces the URL's token in this browser: for the mount and below (its path without the
   * trailing slash, so the bare `/inspector` gets it too), never readable by scripts, never sent from another site.
   */
  setCookie(request: NeutralRequest): string {
    const path = this.mountPath.length > 1 ? this.mountPath.slice(0, -1) : '/';
    return `${cookieName(request)}=${this.session}; Path=${path}; HttpOnly; SameSite=Strict`;
  }

  /** `path` with the request's query minus the token: where the browser goes once it holds the cookie. */
  cleanLocation(path: string, request: NeutralRequest): string {
    const query = new URLSearchParams(request.query ?? '');
    query.delete(TOKEN_PARAMETER);
    const rest = query.toString();
    return rest ? `${path}?${rest}` : path;
  }
}

/**
 * One cookie per port: cookies ignore ports, so two inspectors on one machine (or a rerun on another port) must not
 * overwrite each other's.
 */
function cookieName(request: NeutralRequest): string {
  const port = /:(\d+)$/.exec(request.headers.host ?? '')?.[1] ?? '80';
  return `mcplite-inspector-${port}`;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Compares digests, so neither the content nor the length of the secret leaks through timing. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
