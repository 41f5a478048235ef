import type { Redis } from 'ioredis';
import type { Logger } from '../../core/logger.js';
import { noticeKind, restoreNotice } from '../../core/notices.js';
import { redisSubscriber } from './connection.js';

/**
 * A partial result or a job's end, as published on the job's channel. A progress or log notice says its kind in
 * `n` (JSON drops the brand that marks it: `core/notices.ts`), so that the front turns it into the client's
 * progress or log message, not into an ordinary partial.
 */
export type ChannelMessage = { t: 'p'; d: unknown; n?: 'progress' | 'log' } | { t: 'e' };

/** One listener's forwarding of a job's partials, one after another (`chain`), until `timer` (its expiry). */
interface Forward {
  onPartial: (data: unknown) => void | Promise<void>;
  timer: NodeJS.Timeout;
  chain: Promise<void>;
}

/**
 * The partial results of queued jobs over Redis pub/sub, one channel per token (`BullMqWorkQueue`): the worker
 * running a job publishes; the front that submitted it forwards to its streaming client, and so does any front
 * where a streaming `redeem` waits for it. A front listens from before the job is queued (no early partial is
 * lost) until the job's end message, a cancel or the promise's expiry, so that subscriptions stay bounded by the
 * pending work. One subscriber connection per process, opened on first use (a pure worker never opens it).
 */
export class JobChannels {
  private subscriber: Redis | undefined;
  private readonly forwards = new Map<string, Set<Forward>>();

  /**
   * `base` prefixes every channel; `publisher` is the queue's command connection; `guard` runs a Redis
   * operation once a client is ready, turning failures into `unavailable` (the queue's `redis`).
   */
  constructor(
    private readonly base: string,
    private readonly publisher: Redis,
    private readonly logger: Logger,
    private readonly guard: <T>(op: () => Promise<T>, client: Redis) => Promise<T>,
  ) {}

  /** How many jobs this front forwards partials of (tests, metrics). */
  get size(): number {
    return this.forwards.size;
  }

  /** Publishes a partial or a job's end. A lost partial must not fail the job: errors are logged only. */
  async publish(token: string, message: ChannelMessage): Promise<void> {
    const kind = message.t === 'p' ? noticeKind(message.d) : undefined;
    try {
      await this.publisher.publish(
        this.base + token,
        JSON.stringify(kind ? { ...message, n: kind } : message),
      );
    } catch (err) {
      this.logger.debug({ err, token }, 'could not publish to the job channel');
    }
  }

  /**
   * Subscribes to a job's channel and forwards its partials to `onPartial` until the job ends, `expiresAt`, or
   * the returned function is called; rejects `unavailable` when it cannot subscribe.
   */
  async listen(
    token: string,
    expiresAt: number,
    onPartial: (data: unknown) => void | Promise<void>,
  ): Promise<() => void> {
    const subscriber = this.ensureSubscriber();
    const forward: Forward = {
      onPartial,
      timer: setTimeout(
        () => this.drop(token, forward),
        Math.min(2 ** 31 - 1, Math.max(0, expiresAt - Date.now())),
      ),
      chain: Promise.resolve(),
    };
    forward.timer.unref();
    let listeners = this.forwards.get(token);
    const first = !listeners;
    if (!listeners) {
      listeners = new Set();
      this.forwards.set(token, listeners);
    }
    listeners.add(forward);
    try {
      if (first) await this.guard(() => subscriber.subscribe(this.base + token), subscriber);
    } catch (err) {
      this.drop(token, forward);
      throw err;
    }
    return () => this.drop(token, forward);
  }

  /** Stops forwarding a job's partials to everyone (its end, a cancel). */
  stop(token: string): void {
    const listeners = this.forwards.get(token);
    if (!listeners) return;
    for (const forward of listeners) clearTimeout(forward.timer);
    this.forwards.delete(token);
    this.subscriber?.unsubscribe(this.base + token).catch(() => {});
  }

  /** Stops one listener; the channel is left when it was the last. */
  private drop(token: string, forward: Forward): void {
    const listeners = this.forwards.get(token);
    if (!listeners?.delete(forward)) return;
    clearTimeout(forward.timer);
    if (listeners.size === 0) this.stop(token);
  }

  /** Stops every forwarding and closes the subscriber connection. */
  close(): void {
    for (const token of [...this.forwards.keys()]) this.stop(token);
    this.subscriber?.removeAllListeners('close').disconnect();
  }

  private ensureSubscriber(): Redis {
    if (this.subscriber) return this.subscriber;
    const subscriber = redisSubscriber(this.publisher);
    subscriber.on('message', (channel: string, text: string) => {
      if (!channel.startsWith(this.base)) return;
      const token = channel.slice(this.base.length);
      const listeners = this.forwards.get(token);
      if (!listeners) return;
      const message = parse(text);
      // The end of the job, or anything unreadable (not ours): stop rather than crash the process.
      if (message?.t !== 'p') return this.stop(token);
      const data =
        (message.n === 'progress' || message.n === 'log') &&
        typeof message.d === 'object' &&
        message.d !== null
          ? restoreNotice(message.n, message.d)
          : message.d;
      for (const forward of listeners) {
        forward.chain = forward.chain
          .then(() => forward.onPartial(data))
          .catch((err) => this.logger.debug({ err, token }, 'partial listener failed'));
      }
    });
    this.subscriber = subscriber;
    return subscriber;
  }
}

function parse(text: string): ChannelMessage | undefined {
  try {
    return JSON.parse(text) as ChannelMessage;
  } catch {
    return undefined;
  }
}
