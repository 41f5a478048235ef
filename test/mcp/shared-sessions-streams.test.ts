/**
 * MCP sessions shared between two replicas through Redis (`RedisSessionStore`), their use and their streams: two
 * `serve()` instances on different ports, each with its own store over the same Redis and prefix (and the same
 * secret), used by one client over raw HTTP so that each request goes to the replica the test chooses. A session
 * made on A is used on B; an elicitation/create sent on A's stream is answered by a POST on B; a GET stream on B
 * hears a notification produced on A; a Last-Event-ID resume works on B (a GET stream's and a POST stream's); a
 * task of the stateless revision made on A that asked for input is resumed on B. Bounds, DELETE, a Redis that is
 * down and the legacy HTTP+SSE transport are in mcp-shared-sessions-edges.test.ts. Needs a real Redis at
 * REDIS_URL (skipped, with a warning, without one).
 */
import { expect, it } from 'vitest';
import { waitFor } from '../support/scale-cluster.js';
import {
  ACCEPT,
  changeTools,
  closeReplica,
  describeShared,
  getStream,
  openSession,
  post,
  REDIS_URL,
  replica,
  request,
  SseReader,
  stateless,
  taskStatus,
} from '../support/shared-sessions.js';
import { slowLink } from '../support/slow-link.js';

describeShared('test/mcp/shared-sessions-streams.test.ts', 'streams', ({ a, b, prefixOf }) => {
  const taskPrefix = prefixOf('task');

  it('serves a session made on A on B: tools/call, logging/setLevel, then a call on A at that level', async () => {
    const session = await openSession(a.url);
    expect(session).toMatch(/^[\x21-\x7e]+$/);
    const initialized = await post(b.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    expect(initialized.status).toBe(202);

    const call = await post(b.url, request('tools/call', { name: 'echo', arguments: { x: 1 } }), session);
    expect(call.status).toBe(200);
    expect((await call.json()).result.structuredContent).toEqual({ x: 1 });

    const level = await post(b.url, request('logging/setLevel', { level: 'warning' }), session);
    expect(level.status).toBe(200);
    expect((await level.json()).result).toEqual({});

    // The level set on B is the session's on A: only the error passes it.
    const chatty = await post(a.url, request('tools/call', { name: 'chatty', arguments: {} }), session);
    expect(chatty.headers.get('content-type')).toContain('text/event-stream');
    const sse = new SseReader(chatty);
    const log = await sse.next();
    expect(log.data).toMatchObject({
      method: 'notifications/message',
      params: { level: 'error', data: 'loud' },
    });
    expect((await sse.next()).data.result.content[0].text).toBe('ok');
    sse.cancel();

    // The negotiated revision is the session's on B too.
    const wrong = await fetch(`${b.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT,
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-03-26',
      },
      body: JSON.stringify(request('ping')),
    });
    expect(wrong.status).toBe(400);
    await wrong.text();
  });

  it("answers an elicitation/create sent on A's stream with a POST on B, and the tool completes", async () => {
    const session = await openSession(a.url);
    const call = await post(a.url, request('tools/call', { name: 'ask_name', arguments: {} }), session);
    expect(call.status).toBe(200);
    const sse = new SseReader(call);
    const ask = await sse.next();
    expect(ask.data.method).toBe('elicitation/create');
    expect(ask.data.params.message).toBe('What is your name?');

    const answer = await post(
      b.url,
      { jsonrpc: '2.0', id: ask.data.id, result: { action: 'accept', content: { name: 'Ada' } } },
      session,
    );
    expect(answer.status).toBe(202);
    const result = await sse.next();
    expect(result.data.result.isError).toBeFalsy();
    expect(result.data.result.content[0].text).toContain('Hello, Ada!');
    sse.cancel();
  });

  it('carries a notification produced on A to the GET stream open on B', async () => {
    const session = await openSession(a.url);
    await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    const res = await getStream(b.url, session);
    expect(res.status).toBe(200);
    const sse = new SseReader(res);
    changeTools(a);
    const event = await sse.next();
    expect(event.data).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(event.id).toBeTruthy();
    sse.cancel();
  });

  it('resumes with Last-Event-ID on B what A recorded', async () => {
    const session = await openSession(a.url);
    await post(a.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    const first = new SseReader(await getStream(a.url, session));
    changeTools(a);
    const seen = await first.next();
    first.cancel();
    // Kept in the session's log (in Redis) for resumption: the resume below starts once B's store holds both.
    changeTools(a);
    changeTools(a);
    await waitFor(
      async () => ((await b.store.eventsAfter(session, seen.id!))?.events.length ?? 0) >= 2,
      10_000,
      'the two notifications in the session log',
    );

    const resumed = new SseReader(await getStream(b.url, session, seen.id));
    const one = await resumed.next();
    const two = await resumed.next();
    expect(one.data.method).toBe('notifications/tools/list_changed');
    expect(two.data.method).toBe('notifications/tools/list_changed');
    expect(one.id).not.toBe(seen.id);
    expect(two.id).not.toBe(one.id);
    // And the stream goes on from there: a notification produced on A after the resume.
    changeTools(a);
    expect((await resumed.next()).data.method).toBe('notifications/tools/list_changed');
    resumed.cancel();
  });

  it("resumes on B a POST stream of A's with Last-Event-ID", async () => {
    const session = await openSession(a.url);
    await post(a.url, request('logging/setLevel', { level: 'warning' }), session);
    const call = await post(a.url, request('tools/call', { name: 'chatty', arguments: {} }), session);
    const sse = new SseReader(call);
    const log = await sse.next();
    expect(log.data.method).toBe('notifications/message');
    expect(log.id).toBeTruthy();
    const result = await sse.next();
    sse.cancel();
    const resumed = new SseReader(await getStream(b.url, session, log.id));
    const replayed = await resumed.next();
    expect(replayed.id).toBe(result.id);
    expect(replayed.data.result.content[0].text).toBe('ok');
    resumed.cancel();
  });

  it('resumes at once on another replica what a replica with a slow link to Redis sent on a POST stream', async () => {
    // The slow replica's events reach its client only once Redis keeps them: a client that resumes at once, on a
    // replica with a fast link, finds them in the log (before, the result was sent at once and reached Redis
    // 100 ms later).
    const link = await slowLink(REDIS_URL!, 100);
    const prefix = prefixOf('slow');
    const slow = await replica(prefix, {}, false, link.url);
    const fast = await replica(prefix);
    try {
      const session = await openSession(slow.url);
      await post(slow.url, request('logging/setLevel', { level: 'warning' }), session);
      const call = await post(slow.url, request('tools/call', { name: 'chatty', arguments: {} }), session);
      const sse = new SseReader(call);
      const log = await sse.next();
      expect(log.data.method).toBe('notifications/message');
      const result = await sse.next();
      expect(result.data.result.content[0].text).toBe('ok');
      sse.cancel();
      const resumed = new SseReader(await getStream(fast.url, session, log.id));
      const replayed = await resumed.next();
      expect(replayed.id).toBe(result.id);
      expect(replayed.data.result.content[0].text).toBe('ok');
      resumed.cancel();
    } finally {
      await closeReplica(fast);
      await closeReplica(slow);
      await link.close();
    }
  }, 120_000);

  it('resumes on B, with tasks/update, a task made on A that asked for input', async () => {
    const c = await replica(taskPrefix, {}, true);
    const d = await replica(taskPrefix, {}, true);
    try {
      const created = (await stateless(c.url, 'tools/call', { name: 'ask_task', arguments: {} })).result;
      expect(created.resultType).toBe('task');
      const { taskId } = created;
      const waiting = await taskStatus(d.url, taskId, 'input_required');
      const [key] = Object.keys(waiting.inputRequests);
      const ack = await stateless(d.url, 'tasks/update', {
        taskId,
        inputResponses: { [key!]: { action: 'accept', content: { name: 'Ada' } } },
      });
      expect(ack.error).toBeUndefined();
      const done = await taskStatus(c.url, taskId, 'completed');
      expect(done.result.content[0].text).toBe('Hello, Ada!');
    } finally {
      await closeReplica(c);
      await closeReplica(d);
    }
  });
});
