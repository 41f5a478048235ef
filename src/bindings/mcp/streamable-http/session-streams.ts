import { randomId } from '../../../core/random-id.js';
import { unrefTimer } from '../../../core/timers.js';
import { OutboundStream, sseEvent } from '../../common/outbound-stream.js';
import { type Notifier, type SubscriptionFilter, tagged } from '../notifier.js';
import type { McpSession, SessionHub } from '../sessions.js';

/**
 * The SSE streams Streamable HTTP holds open in this process: a session's GET stream (and a POST stream resumed on
 * it, `openSessionStream`) and a 2026-07-28 `subscriptions/listen` stream (`listenStream`).
 */

/**
 * A session's GET stream, open in this process: the live part of a session, which cannot be shared. Whatever any
 * replica sends the session reaches it through the store's `listen` (`SessionMessage`): events of its stream,
 * another holder opening the same stream (this one ends: one GET stream per session), the session ending.
 *
 * With `Last-Event-ID` the stream resumes where the client left off, on whichever replica it lands: the events of
 * that stream kept after it are replayed, then what that stream still sends follows (a POST stream resumed on a
 * GET keeps flowing from the replica running the request). A client that stops reading is cut off past
 * `maxQueuedBytes` (`common/outbound-stream.ts`): the events stay in the session's log, for a resumption.
 */
export async function openSessionStream(
  hub: SessionHub,
  session: McpSession,
  lastEventId: string | undefined,
  keepAliveMs: number,
  maxQueuedBytes: number | undefined,
): Promise<OutboundStream> {
  const store = hub.store;
  const holder = randomId(8, 'hex');
  let touch: ReturnType<typeof setInterval> | undefined;
  let stop: (() => void) | undefined;
  const out = new OutboundStream({
    maxQueuedBytes,
    keepAliveMs,
    onEnd: () => {
      if (touch !== undefined) clearInterval(touch);
      stop?.();
    },
  });
  // Until the replay is out, live events of every stream wait here (and those the replay carries are not sent
  // twice): which stream this one resumes is known only from the log, and an event published just after the log
  // was read may come in on the pub/sub connection before the log's reply does.
  let buffered: Array<{ id: string; stream: string; chunk: string }> | undefined = [];
  let stream = 'get';

  // Listen first, then read the log: an event sent in between is in one or the other.
  stop = await store.listen(session.id, (m) => {
    if (m.type === 'closed') out.end();
    else if (m.type === 'opened' && m.stream === stream && m.holder !== holder) out.end();
    else if (m.type === 'event') {
      if (buffered) buffered.push({ id: m.id, stream: m.stream, chunk: m.chunk });
      else if (m.stream === stream) void out.write(m.chunk);
    }
  });
  // The stream may have ended while the store was asked (the client gone): the listener is not needed then.
  if (out.ended) stop();
  try {
    const replay = lastEventId ? await store.eventsAfter(session.id, lastEventId) : undefined;
    if (replay) stream = replay.stream;
    await store.publish(session.id, { type: 'opened', stream, holder });
    const replayed = new Set<string>();
    for (const e of replay?.events ?? []) {
      replayed.add(e.id);
      void out.write(sseEvent('message', e.data, e.id));
    }
    for (const b of buffered ?? []) if (b.stream === stream && !replayed.has(b.id)) void out.write(b.chunk);
    buffered = undefined;
  } catch (err) {
    out.end();
    throw err;
  }
  if (out.ended) return out;

  // An open stream keeps its session in use, on whichever replica holds it; a session gone ends it.
  const idleMs = store.bounds.idleMs;
  if (Number.isFinite(idleMs)) {
    touch = setInterval(
      () => {
        store.touch(session.id).then(
          (alive) => {
            if (!alive) out.end();
          },
          () => {},
        );
      },
      Math.max(10, Math.min(60_000, Math.floor(idleMs / 3))),
    );
    unrefTimer(touch);
  }
  void out.write(': stream open\n\n');
  return out;
}

/**
 * The SSE stream of a 2026-07-28 `subscriptions/listen` request (`id`): the acknowledgement, then every
 * notification `filter` lets through, with a keep-alive comment when idle. It ends when the client goes
 * (`signal`, or the adapter stops reading it); a client that stops reading is cut off past `maxQueuedBytes`
 * (`common/outbound-stream.ts`), what waited for it dropped, rather than buffered for without bound.
 */
export function listenStream(
  notifier: Notifier,
  id: unknown,
  filter: SubscriptionFilter,
  keepAliveMs: number,
  signal: AbortSignal,
  maxQueuedBytes: number | undefined,
): OutboundStream {
  let stop: (() => void) | undefined;
  const out = new OutboundStream({ maxQueuedBytes, keepAliveMs, onEnd: () => stop?.() });
  const send = (message: string) => void out.write(sseEvent('message', message));
  send(tagged('notifications/subscriptions/acknowledged', { notifications: filter }, id));
  stop = notifier.listen(id, filter, send);
  signal.addEventListener('abort', () => out.end(), { once: true });
  return out;
}
