import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openUrl } from './open-url.js';

/** How long a sign-in may wait for the browser to come back. */
const SIGN_IN_MS = 5 * 60_000;

/**
 * The redirect catcher of a native app (RFC 8252 §7.3): an HTTP listener on 127.0.0.1 at a port the system picks,
 * started when a sign-in first needs it. It answers `/callback` once per sign-in with a page the user can close,
 * and hands the whole redirect URL (code, state, iss) to the client, which checks it; a request without the
 * sign-in's `state` is refused (400) and the wait goes on.
 */
export class LoopbackCatcher {
  private server: Server | undefined;
  private waiting: ((url: string) => void) | undefined;
  /** The `state` of the sign-in in progress: a redirect without it is not its answer. */
  private state: string | null = null;
  private url: string | undefined;

  /** The redirect URL, listening from the first call on. */
  async redirectUrl(): Promise<string> {
    if (this.url) return this.url;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/callback' || !this.waiting) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
        return;
      }
      // Any page can send the browser here: a request without the pending state neither completes nor ends
      // the sign-in, which keeps waiting for the authorization server's redirect.
      if (url.searchParams.get('state') !== this.state) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('Not the sign-in in progress');
        return;
      }
      const error = url.searchParams.get('error');
      const text = error
        ? `Sign-in failed: ${url.searchParams.get('error_description') ?? error}`
        : 'Signed in. You can close this tab and return to the terminal.';
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        .end(`<!doctype html><title>mcplite</title><p>${escapeHtml(text)}</p>`);
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting(`${this.url}${url.search}`);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    server.unref();
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
    return this.url;
  }

  /**
   * The user-agent step: prints the URL (and opens a browser unless told not to), then waits for the redirect.
   * `signal` (the command's deadline or Ctrl-C) ends the wait.
   */
  async authorize(authorizationUrl: URL, openBrowser: boolean, signal?: AbortSignal): Promise<string> {
    await this.redirectUrl();
    // Unreferenced while idle (a catcher nobody uses must not hold the process), held while a user is away.
    this.server?.ref();
    this.state = authorizationUrl.searchParams.get('state');
    const back = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('No sign-in within 5 minutes')), SIGN_IN_MS);
      timer.unref();
      const onAbort = () => reject(signal?.reason ?? new Error('Sign-in aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting = (url) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(url);
      };
    });
    process.stderr.write(`Sign in at:\n  ${authorizationUrl.href}\n`);
    if (openBrowser) openUrl(authorizationUrl.href);
    try {
      return await back;
    } finally {
      this.server?.unref();
    }
  }

  close(): void {
    this.server?.close();
    this.server?.closeAllConnections();
  }
}

/** Text safe inside HTML (the error description comes from the authorization server). */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
