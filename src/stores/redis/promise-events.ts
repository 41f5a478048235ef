import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { settlesWithin } from '../../core/timers.js';
import { quitRedis, redisStarting, redisSubscriber, storeUnavailable } from './connection.js';

const RESYNC = Symbol('resync');
/** Emitted with the error waiters reject with when either connection drops. */
const LOST = Symbol('lost');

/** One `waitSettled` call's view of its promise's changes (`PromiseEvents.waiter`). */
export interface Waiter {
  /**
   * Resolves once this process hears the promise's channel (or after `ms`: a slow SUBSCRIBE only delays a wake).
   * Rejects with `unavailable` when the Redis connection drops meanwhile.
   */
  subscribed(ms: number): Promise<void>;
  /** Forgets the changes heard so far: call it before reading the record. */
  reset(): void;
  /**
   * Resolves at once when a change (or abort, or resync) came since `reset`, else at the next one or after `ms`.
   * Rejects with `unavailable` as soon as the Redis connection drops: a waiter cannot hear a change then, and the
   * caller is promised a clear error at once rather than a silent wait until its deadline.
   */
  changed(ms: number): Promise<void>;
  /** Ends this waiter's listening; the channel is left when it was the last. */
  done(): void;
}

/**
 * The pub/sub side of the Redis promise store (promise-store.ts): one subscriber connection per store.
 * - channel `P w:<token>`: a promise's change, subscribed only while a waiter here needs it, so that a settlement
 *   nobody waits for costs no message;
 * - channel `P events`: cancels, for every replica's cancel listeners (the handler may run anywhere).
 * Messages are `s:<token>` (settled) and `c:<token>` (cancelled). After a reconnection every waiter reads its
 * record again (what was published meanwhile is lost). When the command or the subscriber connection drops,
 * every waiter fails at once with `unavailable` (Redis down means no change can be heard nor read).
 */
export class PromiseEvents {
  /** The store's channel (cancels). */
  readonly channel: string;
  private readonly subscriber: Redis;
  private readonly local = new EventEmitter();
  private readonly cancelListeners = new Set<(token: string) => void>();
  /** The promise channels subscribed here, with how many waiters need each and the SUBSCRIBE's reply. */
  private readonly watched = new Map<string, { waiters: number; subscribed: Promise<unknown> }>();
  private closed = false;
  /**
   * Per connection, what fails every waiter when it drops; kept to be removed from a shared client on close. A
   * connection that was never ready has nothing to lose: a slow first connect is waited for, not failed.
   */
  private readonly lostListeners = new Map<Redis, { ready: () => void; lost: () => void }>();

  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
  ) {
    this.channel = `${prefix}events`;
    this.local.setMaxListeners(0);
    this.subscriber = redisSubscriber(client);
    this.subscriber.on('message', (channel: string, message: string) => this.onMessage(channel, message));
    this.subscriber.on('ready', () => void this.subscribe());
    // 'close' comes first when a connection drops (a reconnection follows); 'end' when none will.
    for (const connection of [client, this.subscriber]) {
      let wasReady = connection.status === 'ready';
      const listeners = {
        ready: () => {
          wasReady = true;
        },
        lost: () => {
          if (this.closed || !wasReady) return;
          wasReady = false;
          this.local.emit(LOST, storeUnavailable(new Error('the connection to Redis was lost')));
        },
      };
      this.lostListeners.set(connection, listeners);
      connection.on('ready', listeners.ready);
      connection.on('close', listeners.lost);
      connection.on('end', listeners.lost);
    }
  }

  /** How many local listeners and promise channels the waiters hold right now (0 when nobody waits). */
  get waiterCount(): number {
    let n = this.watched.size;
    for (const name of this.local.eventNames()) n += this.local.listenerCount(name);
    return n;
  }

  /** The channel a change of `token` is published on (for the FINISH script). */
  channelOf(token: string): string {
    return `${this.prefix}w:${token}`;
  }

  onCancel(listener: (token: string) => void): () => void {
    this.cancelListeners.add(listener);
    return () => this.cancelListeners.delete(listener);
  }

  /** Starts listening for the changes of `token` (and for `signal`'s abort) on behalf of one waiter. */
  waiter(token: string, signal?: AbortSignal): Waiter {
    const event = `t:${token}`;
    let woken = false;
    let lost: Error | undefined;
    let wake: (() => void) | undefined;
    const onEvent = () => {
      woken = true;
      wake?.();
    };
    const onLost = (err: Error) => {
      lost ??= err;
      wake?.();
    };
    this.local.on(event, onEvent);
    this.local.on(RESYNC, onEvent);
    this.local.on(LOST, onLost);
    signal?.addEventListener('abort', onEvent);
    // The command connection already down: its 'close' was before this waiter listened. A client still making
    // its first connection is not down: the store's reads wait for it (withRedis), and so does this waiter.
    if (this.client.status !== 'ready' && !this.closed && !redisStarting(this.client)) {
      lost = storeUnavailable(new Error(`the connection to Redis is ${this.client.status}`));
    }
    const subscribed = this.watch(token);
    const woke = new Promise<void>((resolve) => (wake = resolve));
    let done = false;
    const failIfLost = () => {
      if (lost) throw lost;
    };
    return {
      subscribed: async (ms) => {
        failIfLost();
        await settlesWithin(Promise.race([subscribed, woke]), ms);
        failIfLost();
      },
      reset: () => {
        woken = false;
      },
      changed: async (ms) => {
        failIfLost();
        if (woken) return;
        await settlesWithin(new Promise<void>((resolve) => (wake = resolve)), ms);
        wake = undefined;
        failIfLost();
      },
      done: () => {
        if (done) return;
        done = true;
        wake = undefined;
        this.local.off(event, onEvent);
        this.local.off(RESYNC, onEvent);
        this.local.off(LOST, onLost);
        signal?.removeEventListener('abort', onEvent);
        this.unwatch(token);
      },
    };
  }

  /** Wakes every waiter (it then sees the store closed) and closes the subscriber connection. */
  async close(): Promise<void> {
    this.closed = true;
    this.local.emit(RESYNC);
    this.cancelListeners.clear();
    for (const [connection, listeners] of this.lostListeners) {
      connection.off('ready', listeners.ready);
      connection.off('close', listeners.lost);
      connection.off('end', listeners.lost);
    }
    this.lostListeners.clear();
    await quitRedis(this.subscriber);
  }

  /** Subscribes to a promise's channel for one more waiter (one SUBSCRIBE however many wait). */
  private watch(token: string): Promise<unknown> {
    let entry = this.watched.get(token);
    if (!entry) {
      entry = {
        waiters: 0,
        subscribed: this.subscriber.subscribe(this.channelOf(token)).catch(() => undefined),
      };
      this.watched.set(token, entry);
    }
    entry.waiters += 1;
    return entry.subscribed;
  }

  private unwatch(token: string): void {
    const entry = this.watched.get(token);
    if (!entry || --entry.waiters > 0) return;
    this.watched.delete(token);
    if (!this.closed) this.subscriber.unsubscribe(this.channelOf(token)).catch(() => {});
  }

  private async subscribe(): Promise<void> {
    try {
      // SUBSCRIBE again after a reconnection even if ioredis resubscribes: it is idempotent, and awaiting it
      // tells when messages flow again.
      await this.subscriber.subscribe(this.channel);
      // Changes published while unsubscribed were missed: every waiter reads its record again.
      this.local.emit(RESYNC);
    } catch {
      // The connection dropped again; the next 'ready' retries.
    }
  }

  private onMessage(channel: string, message: string): void {
    if (message.length < 3 || message[1] !== ':') return;
    const token = message.slice(2);
    if (channel !== this.channel) {
      if (channel === this.channelOf(token)) this.local.emit(`t:${token}`);
      return;
    }
    this.local.emit(`t:${token}`);
    if (message[0] !== 'c') return;
    for (const listener of this.cancelListeners) {
      try {
        listener(token);
      } catch {
        // A listener's failure is its own; the others still hear of the cancellation.
      }
    }
  }
}
