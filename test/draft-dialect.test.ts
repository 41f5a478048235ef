/**
 * The draft-seed dialect (`mcp-detailed-draft-spec-2025-06-18.md`) spoken by a raw client through the draft's own
 * example messages over WebSocket (`/mcp`) and stdio: the draft's handshake and shapes, progress, cancel,
 * tools/changed, resources/changed, shutdown and exit. Streamable HTTP: `test/draft-dialect-http.test.ts` and
 * `test/draft-dialect-replicas.test.ts`.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveStdio } from '../src/bindings/mcp/stdio.js';
import { type RunningServer, serve, type ToolServer } from '../src/index.js';
import {
  aborted,
  CANCEL,
  EXIT,
  INITIALIZE,
  INITIALIZED,
  INVOKE,
  makeServer,
  SHUTDOWN,
  TOOLS_LIST,
  WEATHER_SCHEMA,
} from './support/draft-dialect.js';
import { connectWs } from './support/ws-client.js';

/** A connection speaking raw JSON-RPC messages. */
interface Conn {
  send(m: unknown): void;
  next(match: (m: any) => boolean): Promise<any>;
  closed: Promise<unknown>;
}

/** Runs the draft's transcript over one connection to `server`. */
async function transcript(server: ToolServer, conn: Conn): Promise<void> {
  conn.send(INITIALIZE);
  expect(await conn.next((m) => m.id === 1)).toEqual({
    jsonrpc: '2.0',
    id: 1,
    result: {
      server: { name: 'example-server', version: '1.0.0' },
      serverCapabilities: {
        supportsToolDiscovery: true,
        supportsResourceDiscovery: false,
        supportsNotifications: true,
        supportsProgress: true,
        supportsCancellation: true,
      },
    },
  });
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
  let server: ToolServer;
  let running: RunningServer;
  beforeAll(async () => {
    server = makeServer();
    running = await serve(server, { port: 0 });
  });
  afterAll(() => running.close(1000));

  it('over WebSocket: the draft example messages, answered in the draft shapes; exit closes', async () => {
    aborted.length = 0;
    const c = await connectWs(`${running.url.replace('http', 'ws')}/mcp`, { protocol: 'mcp' });
    await transcript(server, { send: c.send, next: c.next, closed: c.closed });
    expect((await c.closed).code).toBe(1000);
  });

  it('over stdio', async () => {
    aborted.length = 0;
    const stdioServer = makeServer();
    const input = new PassThrough();
    const output = new PassThrough();
    const stdio = serveStdio(stdioServer, { input, output });
    const received: any[] = [];
    const waiters: Array<() => void> = [];
    let buffered = '';
    output.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        received.push(JSON.parse(buffered.slice(0, i)));
        buffered = buffered.slice(i + 1);
        for (const w of waiters.splice(0)) w();
      }
    });
    const next = async (match: (m: any) => boolean) => {
      for (;;) {
        const i = received.findIndex(match);
        if (i >= 0) return received.splice(i, 1)[0];
        await new Promise<void>((r) => waiters.push(r));
      }
    };
    await transcript(stdioServer, {
      send: (m) => input.write(`${JSON.stringify(m)}\n`),
      next,
      closed: stdio.closed,
    });
    await stdioServer.close();
  });
});
