/**
 * The draft-seed dialect (`mcp-detailed-draft-spec-2025-06-18.md`) spoken by a raw client through the draft's own
 * example messages over WebSocket (`/mcp`) and stdio: the draft's handshake and shapes, progress, cancel,
 * tools/changed, resources/changed, shutdown and exit. Streamable HTTP: `test/mcp/draft-dialect-http.test.ts` and
 * `test/mcp/draft-dialect-replicas.test.ts`.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { serveMcpStdio } from '../../src/bindings/mcp/stdio/index.js';
import type { ToolServer } from '../../src/index.js';
import {
  aborted,
  CANCEL,
  EXIT,
  INITIALIZE,
  INITIALIZE_RESULT,
  INITIALIZED,
  INVOKE,
  makeServer,
  SHUTDOWN,
  TOOLS_LIST,
  useDraftServer,
  WEATHER_SCHEMA,
} from '../support/draft-dialect.js';
import { jsonLines } from '../support/json-lines.js';
import { connectWs } from '../support/ws-client.js';

/** A connection speaking raw JSON-RPC messages. */
interface Conn {
  send(m: unknown): void;
  next(match: (m: any) => boolean): Promise<any>;
  closed: Promise<unknown>;
}

/** Runs the draft's transcript over one connection to `server`. */
async function transcript(server: ToolServer, conn: Conn): Promise<void> {
  conn.send(INITIALIZE);
  expect(await conn.next((m) => m.id === 1)).toEqual(INITIALIZE_RESULT);
  conn.send(INITIALIZED);
  conn.send(TOOLS_LIST);
  const listed = await conn.next((m) => m.id === 2);
  expect(listed.result).toEqual([
    expect.objectContaining({
      name: 'get_weather',
      description: 'Retrieve weather for a city',
      inputSchema: WEATHER_SCHEMA,
    }),
  ]);
  conn.send(INVOKE);
  expect(await conn.next((m) => m.id === 10)).toEqual({
    jsonrpc: '2.0',
    id: 10,
    result: { status: 'success', output: { temperature: 89, condition: 'Sunny' } },
  });
  conn.send({ ...INVOKE, id: 11, params: { name: 'get_weather', arguments: {} } });
  expect(await conn.next((m) => m.id === 11)).toEqual({
    jsonrpc: '2.0',
    id: 11,
    error: expect.objectContaining({ code: 4001, message: "Missing required parameter 'city'" }),
  });
  // Progress, then the draft's cancel of the running call.
  conn.send({ ...INVOKE, params: { name: 'get_weather', arguments: { city: 'Slow' } } });
  expect(await conn.next((m) => m.method === 'progress')).toEqual({
    jsonrpc: '2.0',
    method: 'progress',
    params: { id: 10, percent: 42, message: 'Searching...' },
  });
  conn.send(CANCEL);
  expect((await conn.next((m) => m.id === 10)).error).toBeDefined();
  expect(aborted).toContain('Slow');
  // A tool appears and one goes: tools/changed says which.
  server.catalog.add({ name: 'new_tool', description: 'A new feature', handler: () => 1 });
  expect(await conn.next((m) => m.method === 'tools/changed')).toEqual({
    jsonrpc: '2.0',
    method: 'tools/changed',
    params: { added: [{ name: 'new_tool', description: 'A new feature' }], removed: [] },
  });
  server.catalog.remove('new_tool');
  expect((await conn.next((m) => m.method === 'tools/changed')).params).toEqual({
    added: [],
    removed: ['new_tool'],
  });
  server.resources.add({ uri: 'user_files', name: 'user_files', read: () => 'x' });
  expect(await conn.next((m) => m.method === 'resources/changed')).toEqual({
    jsonrpc: '2.0',
    method: 'resources/changed',
    params: { updated: ['user_files'] },
  });
  server.resources.remove('user_files');
  await conn.next((m) => m.method === 'resources/changed');
  conn.send(SHUTDOWN);
  expect(await conn.next((m) => m.id === 50)).toEqual({ jsonrpc: '2.0', result: null, id: 50 });
  conn.send(EXIT);
  await conn.closed;
}

describe('the draft-seed dialect', () => {
  const live = useDraftServer();

  it('over WebSocket: the draft example messages, answered in the draft shapes; exit closes', async () => {
    aborted.length = 0;
    const c = await connectWs(`${live.running.url.replace('http', 'ws')}/mcp`, { protocol: 'mcp' });
    await transcript(live.server, { send: c.send, next: c.next, closed: c.closed });
    expect((await c.closed).code).toBe(1000);
  });

  it('over stdio', async () => {
    aborted.length = 0;
    const stdioServer = makeServer();
    const input = new PassThrough();
    const output = new PassThrough();
    const stdio = serveMcpStdio(stdioServer, { input, output });
    const { next } = jsonLines(output);
    await transcript(stdioServer, {
      send: (m) => input.write(`${JSON.stringify(m)}\n`),
      next,
      closed: stdio.closed,
    });
    await stdioServer.close();
  });

  it('names its operations binding "draft" over a connection, as over Streamable HTTP', async () => {
    const seen: Array<[string, string]> = [];
    const server = makeServer({
      middleware: [
        (op, next) => {
          seen.push([op.method, op.caller.binding]);
          return next();
        },
      ],
    });
    const input = new PassThrough();
    const output = new PassThrough();
    const stdio = serveMcpStdio(server, { input, output });
    const { next } = jsonLines(output);
    input.write(`${JSON.stringify(INITIALIZE)}\n`);
    await next((m) => m.id === 1);
    input.write(`${JSON.stringify(INITIALIZED)}\n`);
    input.write(`${JSON.stringify(TOOLS_LIST)}\n`);
    await next((m) => m.id === 2);
    input.write(`${JSON.stringify(INVOKE)}\n`);
    expect((await next((m) => m.id === 10)).result.status).toBe('success');
    expect(seen).toEqual([
      ['tools/list', 'draft'],
      ['tools/call', 'draft'],
    ]);
    input.end();
    await stdio.closed;
    await server.close();
  });
});
