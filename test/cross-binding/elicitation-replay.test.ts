/**
 * Issue 22, item 2: an elicitation answer replayed. A "yes" to `delete_note {id: n9}` resent with `{id: n10}`
 * deleted n10, and resent again deleted n9 once more. The signed state is now bound to the call (tool, a digest of
 * the validated arguments, the principal) and answers one call only (its nonce kept in the state store until the
 * state expires). Over MCP-lite HTTP and over MCP with the official SDK client, with the memory store, and over
 * two ToolServers sharing one Redis (REDIS_URL).
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuth, createServer, defineTool, elicit, type ToolDefinition } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { RedisElicitationNonceStore } from '../../src/stores/redis/elicitation-nonce-store.js';
import { callMessage, rpc } from '../support/mcp-lite-http.js';
import { deletePrefix } from '../support/scale-cluster.js';

/** A note store and the tool that deletes from it once the user confirms; `deleted` counts every deletion. */
function notes() {
  const kept = new Set(['n9', 'n10']);
  const deleted: string[] = [];
  const tool: ToolDefinition = defineTool<{ id: string }>({
    name: 'delete_note',
    description: 'Deletes a note once the user confirms',
    inputSchema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
    handler: ({ id }, ctx) => {
      if (!ctx.elicitation) {
        return elicit({ message: `Delete note ${id}?`, schema: { type: 'object', properties: {} } });
      }
      if (ctx.elicitation.action !== 'accept') return { kept: id };
      kept.delete(id);
      deleted.push(id);
      return { deleted: id };
    },
  });
  return { kept, deleted, tool };
}

describe('MCP-lite HTTP (memory store)', () => {
  const state = notes();
  let running: RunningServer;
  let url: string;
  const as = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    running = await serve(
      createServer({ tools: [state.tool], authenticate: bearerAuth(['alice-token', 'bob-token']) }),
      { port: 0 },
    );
    url = `${running.url}/mcp-lite/v1/calltools`;
  });
  afterAll(() => running.close(1000));

  it('refuses the answer for other arguments, for another caller, and a second time', async () => {
    const asked = await rpc(url, callMessage(1, 'delete_note', { id: 'n9' }), as('alice-token'));
    const yes = { elicitation: { state: asked.result!.elicitation.state, answers: {} } };

    const otherArgs = await rpc(url, callMessage(2, 'delete_note', { id: 'n10' }, yes), as('alice-token'));
    expect(otherArgs.error).toMatchObject({ code: -32602, data: { reason: 'wrong_arguments' } });
    expect(otherArgs.error!.message).toMatch(/not for these arguments/);

    const otherCaller = await rpc(url, callMessage(3, 'delete_note', { id: 'n9' }, yes), as('bob-token'));
    expect(otherCaller.error).toMatchObject({ code: -32602, data: { reason: 'wrong_caller' } });

    const answered = await rpc(url, callMessage(4, 'delete_note', { id: 'n9' }, yes), as('alice-token'));
    expect(answered.result!.content).toEqual({ deleted: 'n9' });

    const replayed = await rpc(url, callMessage(5, 'delete_note', { id: 'n9' }, yes), as('alice-token'));
    expect(replayed.error).toMatchObject({ code: -32602, data: { reason: 'already_used' } });
    expect(replayed.error!.message).toMatch(/already used/);

    expect(state.deleted).toEqual(['n9']);
    expect(state.kept.has('n10')).toBe(true);
  });

  it('binds the arguments by value, whatever order their keys come in', async () => {
    const asked = await rpc(url, callMessage(1, 'delete_note', { id: 'n10' }), as('alice-token'));
    const elicitation = { state: asked.result!.elicitation.state, answers: {} };
    // The same arguments as another JSON text: same digest.
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...as('alice-token') },
      body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"elicitation":${JSON.stringify(elicitation)},"arguments":{ "id" : "n10" },"name":"delete_note"}}`,
    });
    expect(((await res.json()) as { result: { content: unknown } }).result.content).toEqual({
      deleted: 'n10',
    });
  });
});

describe('MCP with the official SDK client (memory store)', () => {
  const state = notes();
  let running: RunningServer;
  let client: Client;

  beforeAll(async () => {
    running = await serve(createServer({ tools: [state.tool] }), { port: 0 });
    // No elicitation capability: the server cannot ask, so the state comes back in the result and the client
    // answers with params.elicitation (docs/mcp-hardening.md).
    client = new Client({ name: 'replayer', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
  });
  afterAll(async () => {
    await client.close();
    await running.close(1000);
  });

  const answer = (args: Record<string, unknown>, stateText: string) =>
    client.request(
      {
        method: 'tools/call',
        params: { name: 'delete_note', arguments: args, elicitation: { state: stateText, answers: {} } },
      } as never,
      CallToolResultSchema,
    );

  it('refuses the answer for other arguments and a second time', async () => {
    const asked = await client.callTool({ name: 'delete_note', arguments: { id: 'n9' } });
    const stateText = (asked._meta!['mcplite/elicitation'] as { state: string }).state;

    await expect(answer({ id: 'n10' }, stateText)).rejects.toMatchObject({
      code: -32602,
      data: { reason: 'wrong_arguments' },
    });
    const answered = await answer({ id: 'n9' }, stateText);
    expect(answered.structuredContent).toEqual({ deleted: 'n9' });
    await expect(answer({ id: 'n9' }, stateText)).rejects.toMatchObject({
      code: -32602,
      data: { reason: 'already_used' },
    });
    expect(state.deleted).toEqual(['n9']);
    expect(state.kept.has('n10')).toBe(true);
  });
});

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) {
  console.warn(
    'SKIPPED in test/cross-binding/elicitation-replay.test.ts: REDIS_URL is not set (e.g. redis://127.0.0.1:6379), so replays across replicas sharing a RedisElicitationNonceStore are not tested',
  );
}

describe.skipIf(!REDIS_URL)('two ToolServers sharing one Redis', () => {
  const prefix = `mcplite-test-nonces-${randomBytes(6).toString('hex')}:`;
  const state = notes();
  const replicas: Array<{ running: RunningServer; url: string }> = [];

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const server = createServer({
        tools: [state.tool],
        secret: 'shared-secret-of-the-replicas',
        elicitationNonceStore: new RedisElicitationNonceStore({ url: REDIS_URL!, prefix }),
      });
      const running = await serve(server, { port: 0 });
      replicas.push({ running, url: `${running.url}/mcp-lite/v1/calltools` });
    }
  });
  afterAll(async () => {
    for (const r of replicas) await r.running.close(1000);
    await deletePrefix(REDIS_URL!, prefix);
  });

  it('takes an answer on one replica once, and refuses it on the other and for other arguments', async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const asked = await rpc(a.url, callMessage(1, 'delete_note', { id: 'n9' }));
    const yes = { elicitation: { state: asked.result!.elicitation.state, answers: {} } };

    const otherArgs = await rpc(b.url, callMessage(2, 'delete_note', { id: 'n10' }, yes));
    expect(otherArgs.error).toMatchObject({ code: -32602, data: { reason: 'wrong_arguments' } });

    const answered = await rpc(b.url, callMessage(3, 'delete_note', { id: 'n9' }, yes));
    expect(answered.result!.content).toEqual({ deleted: 'n9' });
    for (const r of [a, b]) {
      const replayed = await rpc(r.url, callMessage(4, 'delete_note', { id: 'n9' }, yes));
      expect(replayed.error).toMatchObject({ code: -32602, data: { reason: 'already_used' } });
    }
    expect(state.deleted).toEqual(['n9']);
  });

  it('lets one of two replicas take the same answer sent to both at once', async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const asked = await rpc(a.url, callMessage(1, 'delete_note', { id: 'n10' }));
    const yes = { elicitation: { state: asked.result!.elicitation.state, answers: {} } };
    const both = await Promise.all(
      [a, b, a, b].map((r, i) => rpc(r.url, callMessage(i, 'delete_note', { id: 'n10' }, yes))),
    );
    expect(both.filter((r) => r.result).length).toBe(1);
    expect(both.filter((r) => r.error?.data?.reason === 'already_used').length).toBe(3);
    expect(state.deleted.filter((id) => id === 'n10')).toEqual(['n10']);
  });
});
