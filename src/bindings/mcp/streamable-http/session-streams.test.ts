/**
 * A POST stream resumed on a GET (Last-Event-ID) loses none of its events, also one sent while the resume reads
 * the log: that event is not in what the read returned, and when it comes in, the resume does not know yet which
 * stream it resumes. Real session stores: the memory one, and the Redis one at REDIS_URL (there the event comes
 * through pub/sub, the log through another connection).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { deletePrefix } from '../../../../test/support/scale-cluster.js';
import type { SessionEvent, SessionStateStore } from '../../../core/session-state.js';
import { MemorySessionStore } from '../../../stores/memory-sessions.js';
import { RedisSessionStore } from '../../../stores/redis/session-store.js';
import { sseEvent } from '../../common/outbound-stream.js';
import { SessionHub } from '../sessions.js';
import { openSessionStream } from './session-streams.js';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.warn('SKIPPED the Redis case of session-streams.test.ts: REDIS_URL is not set');
const prefix = `mcplite-test-resume:${randomUUID()}:`;

/** Another replica's POST stream sending `event` right after this replica's resume has read the log. */
type AfterRead = (() => Promise<void>) | undefined;

/** `Base` whose `eventsAfter` runs `afterRead` once the log is read, before its caller sees the reply. */
function racing<T extends new (...args: any[]) => SessionStateStore>(Base: T) {
  return class extends Base {
    afterRead: AfterRead;
    override async eventsAfter(sessionId: string, lastEventId: string) {
      const read = await super.eventsAfter(sessionId, lastEventId);
      await this.afterRead?.();
      return read;
    }
  };
}
const MemoryRacingStore = racing(MemorySessionStore);
const RedisRacingStore = racing(RedisSessionStore);

const stores: Array<[string, () => (SessionStateStore & { afterRead: AfterRead }) | undefined]> = [
  ['memory', () => new MemoryRacingStore()],
  ['Redis', () => (REDIS_URL ? new RedisRacingStore({ url: REDIS_URL, prefix }) : undefined)],
];

describe.each(stores)('resuming a POST stream on a GET (%s session store)', (name, make) => {
  afterAll(() => (REDIS_URL ? deletePrefix(REDIS_URL, prefix) : undefined));

  it.skipIf(name === 'Redis' && !REDIS_URL)(
    'replays what followed Last-Event-ID, then delivers an event sent while the log was being read',
    async () => {
      const store = make()!;
      const hub = new SessionHub(store, undefined);
      try {
        const session = await hub.create('2025-11-25', {}, {}, 'addr:test');
        const stream = 'post1';
        const sent = async (event: SessionEvent, publish: boolean) => {
          await store.appendEvent(session.id, event);
          if (publish) {
            const chunk = sseEvent('message', event.data, event.id);
            await store.publish(session.id, { type: 'event', stream: event.stream, id: event.id, chunk });
          }
        };
        const ask = { id: `${stream}_a1`, stream, data: '{"ask":1}' };
        const progress = { id: `${stream}_a2`, stream, data: '{"progress":1}' };
        const result = { id: `${stream}_a3`, stream, data: '{"result":1}' };
        const other = { id: 'other_b1', stream: 'other', data: '{"other":1}' };
        await sent(ask, false);
        await sent(progress, false);
        store.afterRead = async () => {
          store.afterRead = undefined;
          await sent(other, true);
          await sent(result, true);
        };

        const out = await openSessionStream(hub, session, ask.id, 60_000, undefined);
        const seen: string[] = [];
        const reader = (async () => {
          for await (const chunk of out.body) {
            seen.push(chunk);
            if (chunk.includes(result.id)) break;
          }
        })();
        const timeout = new Promise((resolve) => setTimeout(resolve, 5000));
        await Promise.race([reader, timeout]);
        out.end();
        const ids = seen.flatMap((c) => (c.startsWith('id: ') ? [c.slice(4, c.indexOf('\n'))] : []));
        // The progress from the log, then the result sent meanwhile, once; nothing of another stream.
        expect(ids, JSON.stringify(seen)).toEqual([progress.id, result.id]);
      } finally {
        await store.close?.();
      }
    },
  );
});
