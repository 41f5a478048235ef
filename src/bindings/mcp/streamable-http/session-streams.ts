import { randomId } from '../../../core/random-id.js';
import { unrefTimer } from '../../../core/timers.js';
import { AsyncQueue } from '../../common/async-queue.js';
import { type Notifier, type SubscriptionFilter, tagged } from '../notifier.js';
import type { McpSession, SessionHub } from '../sessions.js';

/**
 * The SSE streams Streamable HTTP holds open in this process: a session's GET stream (and a POST stream resumed on
 * it, `openSessionStream`) and a 2026-07-28 `subscriptions/listen` stream (`listenStream`).
 */

/** Most bytes of live events a GET stream keeps for a client that is not reading (1 MiB). */
const MAX_QUEUED_BYTES = 1024 * 1024;

/**
 * A session's GET stream, open in this process: the live part of a session, which cannot be shared. Whatever any
 * replica sends the session reaches it through the store's `listen` (`SessionMessage`): events of its stream,
 * another holder opening the same stream (this one ends: one GET stream per session), the session ending.
 *
 * With `Last-Event-ID` the stream resumes where the client left off, on whichever replica it lands: the events of
 * that stream kept after it are replayed, then what that stream still sends follows (a POST stream resumed on a
 * GET keeps flowing from the replica running the request).
 */
export async function openSessionStream(
  hub: SessionHub,
  session: McpSession,
  lastEventId: string | undefined,
  keepAliveMs: number,
): Promise<{ queue: AsyncQueue<string>; end: () => void; abandoned: AbortSignal }> {
  const store = hub.store;
  const holder = randomId(8, 'hex');
  const queue = new AsyncQueue<string>();
  // Until the replay is out, live events of every stream wait here (and those the replay carries are not sent
  // twice): which stream this one resumes is known only from the log, and an event published just after the log
  // was read may come in on the pub/sub connection before the log's reply does.
  let buffered: Array<{ id: string; stream: string; chunk: string }> | undefined = [];
  let stream = 'get';
  let ended = false;
  let stop: (() => void) | undefined;
  const timers: NodeJS.Timeout[] = [];
  const end = () => {
    if (ended) return;
    ended = true;
    for (const t of timers) clearInterval(t);
    stop?.();
    queue.end();
  };
  queue.onConsumerGone(end);
  // Live events waiting for the client, in UTF-16 units. A client that stops reading is cut off past the bound,
  // what waited dropped: the events stay in the session's log, for a `Last-Event-ID` resumption.
  let queuedBytes = 0;
  // Aborted on the cut-off: the adapter drops the connection and what it still held for the client.
  const cutOff = new AbortController();
  const abandoned = cutOff.signal;
  const deliver = (chunk: string) => {
    if (queuedBytes >= MAX_QUEUED_BYTES) {
      cutOff.abort();
      void queue[Symbol.asyncIterator]().return?.();
      return;
    }
    queuedBytes += chunk.length;
    void queue.push(chunk).then(() => {
      queuedBytes -= chunk.length;
    });
  };

  // Listen first, then read the log: an event sent in between is in one or the other.
  stop = await store.listen(session.id, (m) => {
    if (m.type === 'closed') end();
    else if (m.type === 'opened' && m.stream === stream && m.holder !== holder) end();
    else if (m.type === 'event') {
      if (buffered) buffered.push({ id: m.id, stream: m.stream, chunk: m.chunk });
      else if (m.stream === stream) deliver(m.chunk);
    }
  });
  try {
    const replay = lastEventId ? await store.eventsAfter(session.id, lastEventId) : undefined;
    if (replay) stream = replay.stream;
    await store.publish(session.id, { type: 'opened', stream, holder });
    const replayed = new Set<string>();
    for (const e of replay?.events ?? []) {
      replayed.add(e.id);
      void queue.push(`id: ${e.id}\nevent: message\ndata: ${e.data}\n\n`);
    }
    for (const b of buffered ?? []) if (b.stream === stream && !replayed.has(b.id)) void queue.push(b.chunk);
    buffered = undefined;
  } catch (err) {
    end();
    throw err;
  }
  if (ended) return { queue, end, abandoned };

  // Only an idle stream needs one: a stalled reader must not make them pile up.
  const keepAlive = setInterval(() => {
    if (queue.pending === 0) void queue.push(': keep-alive\n\n');
  }, keepAliveMs);
  unrefTimer(keepAlive);
  timers.push(keepAlive);
  // An open stream keeps its session in use, on whichever replica holds it; a session gone ends it.
  const idleMs = store.bounds.idleMs;
  if (Number.isFinite(idleMs)) {
    const touch = setInterval(
      () => {
        store.touch(session.id).then(
          (alive) => {
            if (!alive) end();
          },
          () => {},
        );
      },
      Math.max(10, Math.min(60_000, Math.floor(idleMs / 3))),
    );
    unrefTimer(touch);
    timers.push(touch);
  }
  void queue.push(': stream open\n\n');
  return { queue, end, abandoned };
}

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
