/**
 * Scale-out on Redis, end to end — MCP sessions and elicitation across fronts: three fronts
 * (`mcplite serve --demo --redis … --no-worker`) and two workers (`mcplite worker --demo --redis …`) as real
 * processes of the built CLI, behind a real round-robin HAProxy and also addressed directly. An elicitation asked
 * on one front is answered on another (MCP-lite's signed state, and MCP's `elicitation/create`); an MCP session
 * made on one front serves on the others; a stream is resumed with Last-Event-ID on a third front.
 * Promises across fronts are in scale-out-promises.test.ts; restarts in scale-out-restarts.test.ts.
 *
 * Needs a real Redis at REDIS_URL (CI sets it; the tests skip, saying so, without it), `npm run build` (the
 * replicas run dist/src/cli/main.js) and /usr/sbin/haproxy. This file starts its own cluster with its own key
 * prefix and deletes only its own keys. Every request has a timeout and every test a time limit, so a feature that
 * is missing fails its test instead of hanging the file.
 */
import { describe, expect, it } from 'vitest';
import {
  callTool,
  EventStream,
  kindOf,
  mcpHeaders,
  postJson,
  readEvents,
  sleep,
} from '../support/scale-cluster.js';
import { skipReason, useScaleOut } from '../support/scale-out.js';

describe.skipIf(skipReason !== undefined)('scale-out: 3 fronts and 2 workers on Redis behind HAProxy', () => {
  // This file's own cluster (own key prefix): started in beforeAll, stopped in afterAll.
  const { c, rpc } = useScaleOut();

  it('answers an elicitation asked on one front on another (the signed state, MCP-lite HTTP)', async () => {
    const asked = await callTool(rpc(0), 'subscribe_digest', {});
    const elicitation = asked.body.result?.elicitation;
    expect(elicitation?.state, JSON.stringify(asked.body)).toEqual(expect.any(String));
    const category = elicitation.requested_schema.properties.category.enum[0] as string;
    const answered = await callTool(
      rpc(1),
      'subscribe_digest',
      {},
      {
        elicitation: {
          state: elicitation.state,
          answers: { email: 'a@example.com', frequency: 'weekly', category },
        },
      },
    );
    expect(kindOf(answered), JSON.stringify(answered.body)).toBe('answer');
    expect(answered.body.result!.content).toMatchObject({ subscribed: true, category, frequency: 'weekly' });
  }, 120_000);

  it('serves an MCP session made on one front on the others', async () => {
    const init = await initializeOnFront1({});
    expect(init.status, JSON.stringify(init.body)).toBe(200);
    const session = init.headers.get('mcp-session-id');
    expect(session).toEqual(expect.any(String));
    const initialized = await postJson(
      c.fronts[1]!.mcpUrl,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      mcpHeaders(session!),
    );
    expect(initialized.status, JSON.stringify(initialized.body)).toBe(202);
    for (const [i, f] of [c.fronts[2]!, c.fronts[1]!, c.fronts[0]!].entries()) {
      const list = await postJson(
        f.mcpUrl,
        { jsonrpc: '2.0', id: 10 + i, method: 'tools/list' },
        mcpHeaders(session!),
      );
      expect(list.status, `${f.name}: ${JSON.stringify(list.body)}`).toBe(200);
      expect(list.body.result.tools.map((t: { name: string }) => t.name)).toContain('echo');
    }
    // A session's own state (its log level) set on one front holds on another.
    const level = await postJson(
      c.fronts[2]!.mcpUrl,
      { jsonrpc: '2.0', id: 20, method: 'logging/setLevel', params: { level: 'debug' } },
      mcpHeaders(session!),
    );
    expect(level.status, JSON.stringify(level.body)).toBe(200);
    // Ended on one front, unknown on all.
    const ended = await fetch(c.fronts[1]!.mcpUrl, {
      method: 'DELETE',
      headers: mcpHeaders(session!),
      signal: AbortSignal.timeout(5000),
    });
    expect(ended.status).toBeLessThan(300);
    for (const f of c.fronts) {
      const gone = await postJson(
        f.mcpUrl,
        { jsonrpc: '2.0', id: 30, method: 'tools/list' },
        mcpHeaders(session!),
      );
      expect(gone.status, f.name).toBe(404);
    }
  }, 120_000);

  /** An MCP `initialize` on front 1 by a client declaring `capabilities`. */
  function initializeOnFront1(capabilities: Record<string, unknown>) {
    return postJson(
      c.fronts[0]!.mcpUrl,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities,
          clientInfo: { name: 'scale-out-test', version: '1.0.0' },
        },
      },
      mcpHeaders(),
    );
  }

  /** An MCP session opened on front 1 by a client that declares elicitation. */
  async function elicitingSession(): Promise<string> {
    const init = await initializeOnFront1({ elicitation: {} });
    const session = init.headers.get('mcp-session-id');
    expect(session, JSON.stringify(init.body)).toEqual(expect.any(String));
    await postJson(
      c.fronts[0]!.mcpUrl,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      mcpHeaders(session!),
    );
    return session!;
  }

  /** Starts subscribe_digest on front 1 and reads its POST stream up to the `elicitation/create` request. */
  async function askOnFront1(session: string, id: string) {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), 10_000);
    const res = await fetch(c.fronts[0]!.mcpUrl, {
      method: 'POST',
      headers: mcpHeaders(session),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'subscribe_digest', arguments: { frequency: 'daily' } },
      }),
      signal: abort.signal,
    });
    clearTimeout(timer);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    // One reader for the whole stream: the ask now, the result later.
    const stream = new EventStream(res, abort);
    const events = await stream.until((e) => e.data.includes('"elicitation/create"'));
    const ask = events.find((e) => e.data.includes('"elicitation/create"'));
    expect(ask, `events: ${JSON.stringify(events)}`).toBeDefined();
    expect(ask!.id, 'the stream event has an id to resume from').toEqual(expect.any(String));
    const request = JSON.parse(ask!.data) as { id: string | number; params: { requestedSchema: any } };
    const category = request.params.requestedSchema.properties.category.enum[0] as string;
    return { stream, ask: ask!, request, category };
  }

  /** POSTs the client's answer to an `elicitation/create` to `front`. */
  async function answerOn(front: number, session: string, requestId: string | number, category: string) {
    const answer = await postJson(
      c.fronts[front]!.mcpUrl,
      {
        jsonrpc: '2.0',
        id: requestId,
        result: { action: 'accept', content: { email: 'b@example.com', category } },
      },
      mcpHeaders(session),
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
  }

  /** Reads a GET /mcp stream with Last-Event-ID on `front` until the result of request `id`. */
  async function resumeOn(front: number, session: string, lastEventId: string, id: string) {
    const abort = new AbortController();
    const resumed = await fetch(c.fronts[front]!.mcpUrl, {
      method: 'GET',
      headers: { ...mcpHeaders(session, 'text/event-stream'), 'last-event-id': lastEventId },
      signal: abort.signal,
    });
    if (resumed.status !== 200)
      expect.fail(`resume on front ${front}: ${resumed.status} ${await resumed.text()}`);
    const replay = await readEvents(resumed, (e) => e.data.includes(`"${id}"`), 10_000, abort);
    abort.abort();
    const result = replay.find((e) => e.data.includes(`"${id}"`));
    expect(result, `replayed: ${JSON.stringify(replay)}`).toBeDefined();
    return JSON.parse(result!.data) as { result?: any; error?: any };
  }

  function expectSubscribed(message: { result?: any; error?: any }, category: string) {
    expect(message.result, JSON.stringify(message)).toBeDefined();
    expect(message.result.structuredContent ?? JSON.parse(message.result.content[0].text)).toMatchObject({
      subscribed: true,
      category,
      frequency: 'daily',
    });
  }

  it('answers an elicitation/create through another front and resumes the stream (Last-Event-ID) on a third', async () => {
    const session = await elicitingSession();
    const asked = await askOnFront1(session, 'sub-1');
    // The answer lands on front 2; the call goes on on front 1 and its result ends front 1's stream.
    await answerOn(1, session, asked.request.id, asked.category);
    const rest = await asked.stream.until((e) => e.data.includes('"id":"sub-1"'));
    asked.stream.close();
    const done = rest.find((e) => e.data.includes('"id":"sub-1"'));
    expect(done, `stream: ${JSON.stringify(rest)}`).toBeDefined();
    expectSubscribed(JSON.parse(done!.data), asked.category);
    // What followed the ask is replayed on front 3.
    expectSubscribed(await resumeOn(2, session, asked.ask.id!, 'sub-1'), asked.category);
  }, 120_000);

  // MCP Streamable HTTP: "Disconnection SHOULD NOT be interpreted as the client cancelling its request", and
  // docs/mcp.md: a dropped POST stream continues on the GET. A client whose connection to the balancer breaks
  // resumes on whichever front it reaches next.
  it('continues a call whose POST stream was dropped, answered and resumed on other fronts', async () => {
    const session = await elicitingSession();
    const asked = await askOnFront1(session, 'sub-2');
    asked.stream.close();
    await sleep(200);
    await answerOn(1, session, asked.request.id, asked.category);
    expectSubscribed(await resumeOn(2, session, asked.ask.id!, 'sub-2'), asked.category);
  }, 120_000);
});
