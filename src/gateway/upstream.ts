import type { Client } from '../client/client.js';
import { McpLiteError } from '../core/errors.js';

/** Where an upstream is: serving, being reopened after its connection broke or its process died, or closed. */
export type UpstreamState = 'up' | 'reconnecting' | 'closed';

/** An upstream's state as `/readyz`, the log and a refused call tell it. */
export interface UpstreamStatus {
  state: UpstreamState;
  /** The upstream as shown to clients and in the log: no credentials (`upstreamLabel`). */
  upstream: string;
  /** Attempts to reopen it that failed since it broke. */
  attempts: number;
  /** Why it broke, or why the last attempt to reopen it failed. */
  lastError?: string;
  /** When the next attempt is due (epoch milliseconds), while reconnecting. */
  nextAttemptAt?: number;
}

/** Options of `GatewayUpstream.open`. */
export interface UpstreamOptions {
  /** How the upstream is named in errors, `/readyz` and the log. Default `upstreamLabel(target)`. */
  label?: string;
  /** The wait before the first attempt to reopen, doubled after each failed one (default 200 ms). */
  minBackoffMs?: number;
  /** The longest wait between attempts (default 30 000 ms). */
  maxBackoffMs?: number;
  /**
   * How long one attempt may take (connecting and listing the tools) before it counts as failed (default
   * 30 000 ms). Give the same bound to `open`'s `connect` (its `timeout`) so that it ends what it spawned.
   */
  openTimeoutMs?: number;
  /** How long a health probe (a tools listing) may take before the upstream counts as broken (default 5 000 ms). */
  probeTimeoutMs?: number;
  /**
   * How often the upstream is probed while up, so that a dead one is reopened before the next call needs it
   * (default 5 000 ms; 0: only when a call fails or `/readyz` asks).
   */
  watchMs?: number;
  /** Told of every change of state (the proxy logs it). */
  onChange?: (status: UpstreamStatus) => void;
}

/**
 * The upstream of a gateway, kept alive: when its connection breaks (an oversized message, a dropped socket) or
 * its process dies, it is reopened (a stdio server restarted) with exponential backoff. Calls while it is down
 * fail at once with `unavailable` naming it, and `readiness` rejects with its state for `/readyz`. A break is
 * noticed by a probe (listing the tools): after a call fails other than by the caller's own abort, when
 * `/readyz` asks, and every `watchMs`; a probe that fails means the connection is gone, whatever the wire.
 */
export class GatewayUpstream {
  private current: Client;
  private state: UpstreamState = 'up';
  private attempts = 0;
  private lastError: string | undefined;
  private nextAttemptAt: number | undefined;
  private probing: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private readonly watch: NodeJS.Timeout | undefined;

  private constructor(
    client: Client,
    private readonly reopen: (() => Promise<Client>) | undefined,
    private readonly options: UpstreamOptions & { label: string },
  ) {
    this.current = client;
    const every = options.watchMs ?? 5_000;
    if (reopen && every > 0) {
      this.watch = setInterval(() => {
        if (this.state === 'up') this.probe().catch(() => {});
      }, every);
      this.watch.unref();
    }
  }

  /**
   * Opens the upstream with `open` (which it calls again to reopen it); the first failure is the caller's (the
   * proxy cannot start without its upstream), later ones are retried.
   */
  static async open(
    target: string,
    open: () => Promise<Client>,
    options: UpstreamOptions = {},
  ): Promise<GatewayUpstream> {
    const client = await open();
    return new GatewayUpstream(client, open, { ...options, label: options.label ?? upstreamLabel(target) });
  }

  /** A client that is used as it is, never probed nor reopened (what `gatewayTools(client)` is given). */
  static fixed(client: Client): GatewayUpstream {
    return new GatewayUpstream(client, undefined, { label: upstreamLabel(client.target) });
  }

  /** The client of the live connection, for listing the tools once at start. */
  get client(): Client {
    return this.current;
  }

  /** The state, for `/readyz` and the log. */
  status(): UpstreamStatus {
    return {
      state: this.state,
      upstream: this.options.label,
      attempts: this.attempts,
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
      ...(this.nextAttemptAt !== undefined && this.state === 'reconnecting'
        ? { nextAttemptAt: this.nextAttemptAt }
        : {}),
    };
  }

  /**
   * Runs `use` on the live connection. While the upstream is down it fails at once with `unavailable`; an error
   * that a failed probe shows to be the connection's breaks the upstream (and starts reopening it) and becomes
   * `unavailable` too. Other errors (the upstream refused the call, the caller gave up) are `use`'s own.
   */
  async run<T>(use: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (!this.reopen) return use(this.current);
    if (this.state !== 'up') throw this.unavailable();
    const client = this.current;
    try {
      return await use(client);
    } catch (err) {
      // The state may have changed while the call ran (a probe, `close`).
      const now = this.status().state;
      // The upstream answered (a method it lacks, arguments it refused): its connection is fine, no probe needed,
      // so a gateway listing an upstream without resources costs no extra tools listing each time.
      if (signal?.aborted || now === 'closed' || answered(err)) throw err;
      if (client === this.current && now === 'up') {
        const healthy = await this.probe().then(
          () => true,
          () => false,
        );
        if (healthy) throw err;
        // The call's own error (an answer past the size bound) is why the connection went: name it, not the probe's.
        if (this.status().state === 'reconnecting') this.lastError = messageOf(err);
      }
      // The connection this call was on is gone (now, or while it ran).
      throw this.unavailable();
    }
  }

  /** Resolves while the upstream answers; rejects with its state (as `/readyz` shows it) when it does not. */
  async readiness(): Promise<void> {
    if (this.state === 'up' && this.reopen) await this.probe().catch(() => {});
    // `/readyz` keeps 200 characters of the reason: the state first, the (possibly long) name last.
    if (this.state !== 'up') throw new Error(`upstream ${this.stateLine()}: ${this.options.label}`);
  }

  /** Stops reopening and closes the connection (ending a stdio upstream's process). */
  async close(): Promise<void> {
    this.state = 'closed';
    if (this.watch) clearInterval(this.watch);
    this.wake?.();
    await this.current.close().catch(() => {});
  }

  /** One listing at a time, shared by whoever asks meanwhile; a failure breaks the upstream. */
  private probe(): Promise<void> {
    this.probing ??= (async () => {
      const client = this.current;
      // A timer of our own: an `AbortSignal.timeout` may be collected while waited on, and the probe never end.
      const bound = new AbortController();
      const limit = this.options.probeTimeoutMs ?? 5_000;
      const timer = setTimeout(
        () => bound.abort(new DOMException(`No tools listing within ${limit} ms`, 'TimeoutError')),
        limit,
      );
      try {
        await client.listTools({ signal: bound.signal });
      } catch (err) {
        if (client === this.current) this.broke(err);
        throw err;
      } finally {
        clearTimeout(timer);
        this.probing = undefined;
      }
    })();
    return this.probing;
  }

  /** The connection is gone: close what is left of it (a stdio child too) and reopen it. */
  private broke(err: unknown): void {
    if (this.state !== 'up' || !this.reopen) return;
    this.state = 'reconnecting';
    this.attempts = 0;
    this.lastError = messageOf(err);
    void this.current.close().catch(() => {});
    void this.reconnect(this.reopen);
  }

  private async reconnect(open: () => Promise<Client>): Promise<void> {
    const min = this.options.minBackoffMs ?? 200;
    const max = this.options.maxBackoffMs ?? 30_000;
    while (this.state === 'reconnecting') {
      const delay = Math.min(max, min * 2 ** Math.min(this.attempts, 30));
      this.nextAttemptAt = Date.now() + delay;
      this.changed();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
      if (this.state !== 'reconnecting') return;
      try {
        const client = await this.attempt(open);
        if (this.state !== 'reconnecting') {
          await client.close().catch(() => {});
          return;
        }
        this.current = client;
        this.state = 'up';
        this.nextAttemptAt = undefined;
        this.changed();
        this.attempts = 0;
        return;
      } catch (err) {
        this.attempts++;
        this.lastError = messageOf(err);
      }
    }
  }

  /** One attempt: connected and listing within `openTimeoutMs`, or failed (a late connection is closed). */
  private async attempt(open: () => Promise<Client>): Promise<Client> {
    const limit = this.options.openTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const opening = open();
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${limit} ms while reconnecting`)), limit);
    });
    try {
      const client = await Promise.race([opening, timedOut]);
      try {
        await Promise.race([client.listTools(), timedOut]);
      } catch (err) {
        await client.close().catch(() => {});
        throw err;
      }
      return client;
    } catch (err) {
      void opening.then((late) => late.close()).catch(() => {});
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private changed(): void {
    this.options.onChange?.(this.status());
  }

  /** The state in a few words, for `/readyz` and a refused call: "reconnecting (after 2 failed attempts, …)". */
  private stateLine(): string {
    const s = this.status();
    if (s.state !== 'reconnecting') return s.state;
    const failed = s.attempts > 0 ? `after ${s.attempts} failed attempt${s.attempts === 1 ? '' : 's'}, ` : '';
    const next =
      s.nextAttemptAt !== undefined ? `next attempt in ${Math.max(0, s.nextAttemptAt - Date.now())} ms` : '';
    const last = s.lastError ? `; last error: ${s.lastError}` : '';
    return `reconnecting (${failed}${next}${last})`;
  }

  private unavailable(): McpLiteError {
    const s = this.status();
    return new McpLiteError('unavailable', `Upstream ${s.upstream} is unavailable: ${this.stateLine()}`, {
      reason: 'unavailable',
      upstream: s.upstream,
      upstream_state: s.state,
      ...(s.nextAttemptAt !== undefined ? { retry_after_ms: Math.max(0, s.nextAttemptAt - Date.now()) } : {}),
    });
  }
}

/** Codes that are the upstream's own answer to a request, which only a live connection gives. */
const ANSWERS = new Set<string>([
  'method_not_found',
  'invalid_params',
  'invalid_request',
  'tool_not_found',
  'resource_not_found',
  'forbidden',
  'unauthenticated',
]);

function answered(err: unknown): boolean {
  return err instanceof McpLiteError && ANSWERS.has(err.code);
}

/**
 * A target as it may be shown to the gateway's clients and written to its log: a URL without its user, password
 * and query; a command line with the values of options that look like secrets (`--token x`, `--api-key=x`,
 * `API_KEY=x`) replaced by `***`.
 */
export function upstreamLabel(target: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    try {
      const url = new URL(target);
      return `${url.protocol}//${url.host}${url.pathname}`;
    } catch {
      return target.split(/[?#]/)[0] ?? target;
    }
  }
  const words = target.trim().split(/\s+/);
  const secret = /(token|key|secret|password|passwd|auth|credential)/i;
  return words
    .map((word, i) => {
      const eq = word.indexOf('=');
      if (eq > 0 && secret.test(word.slice(0, eq))) return `${word.slice(0, eq)}=***`;
      const previous = words[i - 1];
      if (previous?.startsWith('-') && !previous.includes('=') && secret.test(previous)) return '***';
      return word;
    })
    .join(' ');
}

function messageOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return (message.split('\n')[0] ?? '').slice(0, 200);
}
