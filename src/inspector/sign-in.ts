import type { OAuthOptions, OAuthStore } from '../client/oauth.js';
import { McpLiteError } from '../core/errors.js';

/** What the page shows of the target's sign-in (`GET api/auth`). */
export interface SignInStatus {
  /** The protected server the tokens are for. */
  server: string;
  /** `pending`: the page should offer `authorizationUrl`; `signed-in`: a token is kept; `signed-out`: none yet. */
  state: 'signed-out' | 'pending' | 'signed-in';
  /** The authorization server's page to open (pending only). */
  authorizationUrl?: string;
  /** Who the kept access token names (its `sub`), when it is a JWT: shown, never trusted. */
  subject?: string;
}

/** How long a sign-in waits for the browser to come back. */
const SIGN_IN_WAIT_MS = 10 * 60_000;

/**
 * The inspector's side of the client's OAuth (docs/inspector.md, "Protected servers"): the client's
 * `onAuthorizationUrl` hands the authorization URL here instead of to a terminal, the page asks for it
 * (`api/auth`) and shows "Sign in to <server>", and the authorization server sends the browser back to the
 * inspector's own loopback route (`<mount>oauth/callback`), which completes the client's sign-in. One sign-in at a
 * time (the client's session already makes concurrent refusals wait for one); the redirect is taken only with the
 * `state` the pending sign-in sent, so a forged one neither completes nor cancels it.
 */
export class InspectorSignIn {
  private pending:
    | {
        url: URL;
        state: string | null;
        resolve(back: string): void;
        reject(err: Error): void;
        timer: NodeJS.Timeout;
      }
    | undefined;
  private redirect: string | undefined;
  private readonly redirectKnown: Promise<string>;
  private announceRedirect: (url: string) => void = () => {};
  private readonly waiters = new Set<() => void>();

  constructor(
    /** The server key tokens are kept under (`oauthServer(target)`, or the `--oauth-resource`). */
    readonly server: string,
    private readonly store: OAuthStore,
  ) {
    this.redirectKnown = new Promise((resolve) => {
      this.announceRedirect = resolve;
    });
  }

  /** Sets the callback URL once the page listens (its port is known only then); a sign-in waits for it. */
  setRedirectUrl(url: string): void {
    this.redirect = url;
    this.announceRedirect(url);
  }

  /** The client's OAuth options with the page as the user agent; `base` brings the store and client identity. */
  oauthOptions(base: OAuthOptions): OAuthOptions {
    return {
      ...base,
      store: this.store,
      redirectUrl: () => this.redirectKnown,
      onAuthorizationUrl: (url) => this.authorize(url),
    };
  }

  /** Resolves at the first sign-in asked for (the CLI prints the page's URL then, not waiting for the target). */
  requested(): Promise<void> {
    if (this.pending) return Promise.resolve();
    return new Promise((resolve) => this.waiters.add(resolve));
  }

  /** Where the page finds the sign-in, and what it shows. */
  async status(): Promise<SignInStatus> {
    if (this.pending)
      return { server: this.server, state: 'pending', authorizationUrl: this.pending.url.href };
    const token = (await this.store.load(this.server))?.tokens?.access_token;
    const subject = token ? subjectOf(token) : undefined;
    return {
      server: this.server,
      state: token ? 'signed-in' : 'signed-out',
      ...(subject ? { subject } : {}),
    };
  }

  /**
   * The authorization server's redirect (`search`: the callback's query). True when it completed the pending
   * sign-in; false when none waits or its `state` is not the one sent.
   */
  complete(search: string): boolean {
    const pending = this.pending;
    const back = new URLSearchParams(search);
    if (!pending || !this.redirect || back.get('state') !== pending.state) return false;
    this.pending = undefined;
    clearTimeout(pending.timer);
    pending.resolve(`${this.redirect}?${back.toString()}`);
    return true;
  }

  private authorize(url: URL): Promise<string> {
    // The page makes a link of it: nothing but a web page (no javascript: from a hostile server's metadata).
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      return Promise.reject(
        new McpLiteError('unauthenticated', 'The authorization URL is not an http(s) URL'),
      );
    // A newer sign-in replaces one nobody finished (its URL is stale: the client starts again).
    this.pending?.reject(new McpLiteError('unauthenticated', 'Sign-in replaced by a newer one'));
    clearTimeout(this.pending?.timer);
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.pending?.url !== url) return;
        this.pending = undefined;
        reject(
          new McpLiteError('unauthenticated', 'No sign-in within ten minutes', {
            reason: 'sign_in_required',
          }),
        );
      }, SIGN_IN_WAIT_MS);
      timer.unref();
      this.pending = { url, state: url.searchParams.get('state'), resolve, reject, timer };
      for (const wake of this.waiters) wake();
      this.waiters.clear();
    });
  }
}

/** The `sub` of a JWT access token, unverified (the page only shows it); undefined for an opaque token. */
function subjectOf(token: string): string | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown };
    return typeof claims.sub === 'string' ? claims.sub.slice(0, 256) : undefined;
  } catch {
    return undefined;
  }
}
