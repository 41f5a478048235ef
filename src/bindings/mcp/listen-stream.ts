import { unrefTimer } from '../../core/timers.js';
import { AsyncQueue } from '../common/async-queue.js';
import type { Notifier, SubscriptionFilter } from './notifier.js';
import { tagged } from './notifier.js';

/** Most notifications a `subscriptions/listen` stream keeps for a client that is not reading; past it, it ends. */
const MAX_QUEUED_NOTIFICATIONS = 1024;

/**
 * The SSE stream of a 2026-07-28 `subscriptions/listen` request (`id`): the acknowledgement, then every
 * notification `filter` lets through, with a keep-alive comment when idle. It ends when the client goes
 * (`signal`, or the adapter stops reading it); a client that stops reading is cut off, what waited for it
 * dropped, rather than buffered for without bound.
 */
export function listenStream(
  notifier: Notifier,
  id: unknown,
  filter: SubscriptionFilter,
  keepAliveMs: number,
  signal: AbortSignal,
): AsyncQueue<string> {
  const queue = new AsyncQueue<string>();
  const send = (message: string) => {
    if (queue.pending < MAX_QUEUED_NOTIFICATIONS) void queue.push(`event: message\ndata: ${message}\n\n`);
    else void queue[Symbol.asyncIterator]().return?.();
  };
  send(tagged('notifications/subscriptions/acknowledged', { notifications: filter }, id));
  const stop = notifier.listen(id, filter, send);
  // Only an idle stream needs one: queued messages keep it alive already.
  const keepAlive = setInterval(() => {
    if (queue.pending === 0) void queue.push(': keep-alive\n\n');
  }, keepAliveMs);
  unrefTimer(keepAlive);
  const end = () => {
    stop();
    clearInterval(keepAlive);
    queue.end();
  };
  queue.onConsumerGone(end);
  signal.addEventListener('abort', end, { once: true });
  return queue;
}
