/**
 * Issue 28: `mcplite proxy --config <file>`, run as a real process, fronting four servers the test starts: the
 * real `@modelcontextprotocol/server-everything` over stdio, a mcplite server over MCP-lite HTTP, a small HTTP API
 * (node:http) with an OpenAPI 3 document, and a mcplite stdio server the test kills. Every server's tools are
 * served under its name on MCP-lite HTTP, MCP (the official SDK client), gRPC and Webtools; include, exclude,
 * rename and describe apply; calls reach each server through each binding; progress and an elicitation pass
 * through; an upstream `list_changed` reaches the catalog and the connected clients; a killed upstream's tools
 * fail fast naming it while the others answer, and it is restarted; the per-call timeout and the in-flight bound.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, connect, McpLiteError } from '../../src/client/index.js';
import { createServer } from '../../src/create-server.js';
import { type RunningServer, serve } from '../../src/serve.js';
import { type Cli, logLine, ROOT, run } from '../support/cli-process.js';
import { EVERYTHING } from '../support/everything.js';
import { latch } from '../support/latch.js';

const dir = mkdtempSync(join(tmpdir(), 'mcplite-gateway-'));
const pidFile = join(dir, 'pids');
const downFile = join(dir, 'down');
const API_KEY = 'k-test-123';
/** The lite upstream's `slow` calls with `hold`: how many started, and the latch that lets them go. */
const held = { count: 0, released: latch() };

/** The pet API: a key required, a $ref'd schema, a tag the config excludes. */
const PETS_DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1.0.0' },
  paths: {
    '/pets': {
      get: {
        operationId: 'listPets',
        tags: ['pets'],
        summary: 'List pets',
        parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
        responses: {
          '200': {
            description: 'pets',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/PetList' } } },
          },
        },
      },
      post: {
        operationId: 'createPet',
        tags: ['pets'],
        summary: 'Add a pet',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } },
        },
        responses: {
          '201': {
            description: 'created',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
          },
        },
      },
    },
    '/pets/{petId}': {
      get: {
        operationId: 'getPet',
        tags: ['pets'],
        summary: 'One pet',
        description: 'By its id.',
        parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: {
          '200': {
            description: 'the pet',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
          },
          '404': { description: 'no such pet' },
        },
      },
    },
    '/admin/stats': {
      get: {
        tags: ['admin'],
        responses: { '200': { description: 'stats', content: { 'application/json': { schema: {} } } } },
      },
    },
  },
  components: {
    schemas: {
      NewPet: {
        type: 'object',
        properties: { name: { type: 'string' } },
        required: ['name'],
      },
      Pet: {
        type: 'object',
        properties: { id: { type: 'integer' }, name: { type: 'string' } },
        required: ['id', 'name'],
      },
      PetList: {
        type: 'object',
        properties: { pets: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } },
      },
    },
  },
};

/** A small real HTTP API: answers only with the key, JSON in and out. */
function startPetApi(): Promise<{ server: Server; url: string; keys: string[] }> {
  const pets = [
    { id: 1, name: 'Rex' },
    { id: 2, name: 'Tom' },
  ];
  const keys: string[] = [];
  const server = createHttpServer(async (req, res) => {
    const key = String(req.headers['x-api-key'] ?? '');
    keys.push(key);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (key !== API_KEY) return json(401, { error: 'bad key' });
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/api/pets') {
      const limit = Number(url.searchParams.get('limit') ?? pets.length);
      return json(200, { pets: pets.slice(0, limit) });
    }
    const one = /^\/api\/pets\/(\d+)$/.exec(url.pathname);
    if (req.method === 'GET' && one) {
      const pet = pets.find((p) => p.id === Number(one[1]));
      return pet ? json(200, pet) : json(404, { error: `no pet ${one[1]}` });
    }
    if (req.method === 'POST' && url.pathname === '/api/pets') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const pet = { id: pets.length + 1, name: (JSON.parse(body) as { name: string }).name };
      pets.push(pet);
      return json(201, pet);
    }
    json(404, { error: 'not found' });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${port}/api`, keys });
    }),
  );
}

function upstreamPids(): number[] {
  return existsSync(pidFile)
    ? readFileSync(pidFile, 'utf8').trim().split('\n').filter(Boolean).map(Number)
    : [];
}

/** The error a call ends in (or undefined when answered), and how long it took. */
async function errorOf(
  client: Client,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<{ error?: McpLiteError; ms: number }> {
  const started = Date.now();
  try {
    const outcome = await client.call(tool, args);
    if (outcome.type === 'failure')
      return { error: new McpLiteError('internal', outcome.message), ms: Date.now() - started };
    return { ms: Date.now() - started };
  } catch (err) {
    return { error: err as McpLiteError, ms: Date.now() - started };
  }
}

async function sdkClient(url: string, elicit?: (message: string) => Record<string, unknown>) {
  const client = new SdkClient(
    { name: 'gateway-test', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: {} } : {} },
  );
  if (elicit)
    client.setRequestHandler(ElicitRequestSchema, async (request) => ({
      action: 'accept',
      content: elicit(request.params.message) as Record<string, string>,
    }));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('mcplite proxy --config: many servers, one gateway', { timeout: 120_000 }, () => {
  let lite: RunningServer;
  let api: Awaited<ReturnType<typeof startPetApi>>;
  let proxy: Cli;
  let base: string;
  let mcpUrl: string;
  let grpcAddress: string;
  let webtool: string;
  const clients: Client[] = [];
  const open = async (target: string) => {
    const c = await connect(target);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    lite = await serve(
      createServer({
        name: 'lite',
        tools: [
          {
            name: 'shout',
            description: 'Upper-cases the text',
            inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
            handler: ({ text }: Record<string, unknown>) => String(text).toUpperCase(),
          },
          {
            name: 'slow',
            description: 'Answers after ms milliseconds (with hold, once the test lets held calls go)',
            inputSchema: {
              type: 'object',
              properties: { ms: { type: 'integer' }, hold: { type: 'boolean' } },
              required: ['ms'],
            },
            handler: async ({ ms, hold }: Record<string, unknown>, ctx) => {
              if (hold === true) {
                held.count++;
                await held.released.promise;
              }
              await new Promise((r) => setTimeout(r, Number(ms)));
              return ctx.signal.aborted ? 'aborted' : `slept ${ms}`;
            },
          },
          { name: 'hidden', description: 'Not included', handler: () => 'no' },
        ],
      }),
      { port: 0, grpcPort: false },
    );
    api = await startPetApi();
    writeFileSync(join(dir, 'pets.json'), JSON.stringify(PETS_DOCUMENT));
    const config = {
      mcpServers: {
        every: {
          command: process.execPath,
          args: [EVERYTHING, 'stdio'],
          tools: {
            exclude: ['get-tiny-image'],
            rename: { 'get-sum': 'add' },
            describe: { echo: 'Repeats the message' },
          },
        },
        lite: {
          target: `${lite.url}/mcp-lite/v1/`,
          timeout: 2500,
          maxInFlight: 2,
          maxInFlightPerCaller: 2,
          tools: { include: ['shout', 'slow'] },
        },
        pets: { openapi: 'pets.json', baseUrl: api.url, apiKeyEnv: 'PETS_KEY', exclude: ['admin'] },
        local: {
          command: process.execPath,
          args: [
            '--import',
            'tsx',
            join(ROOT, 'test/support/gateway-stdio-upstream.ts'),
            '--pid-file',
            pidFile,
            '--down-file',
            downFile,
          ],
        },
        off: { command: 'nothing', disabled: true },
      },
    };
    writeFileSync(join(dir, 'gateway.json'), JSON.stringify(config));
    proxy = run(
      [
        'proxy',
        '--config',
        join(dir, 'gateway.json'),
        '--port',
        '0',
        '--grpc-port',
        '0',
        '--answer-budget',
        '1500',
      ],
      { PETS_KEY: API_KEY },
    );
    const line = await logLine(proxy, (e) => e.msg === 'proxy listening');
    base = String(line.url);
    mcpUrl = String(line.mcp);
    grpcAddress = String(line.grpc);
    webtool = (line.webtools as string[])[0]!;
    expect(Object.keys(line.servers as object).sort()).toEqual(['every', 'lite', 'local', 'pets']);
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    if (proxy && proxy.child.exitCode === null) {
      proxy.child.kill('SIGTERM');
      await proxy.exited;
    }
    for (const pid of upstreamPids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
    await lite?.close(500);
    api?.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const EXPECTED = [
    'every_echo',
    'every_add',
    'lite_shout',
    'lite_slow',
    'pets_listPets',
    'pets_getPet',
    'pets_createPet',
    'local_echo',
    'local_pid',
  ];
  const ABSENT = [
    'every_get-sum',
    'every_get-tiny-image',
    'lite_hidden',
    'pets_get_admin_stats',
    'echo',
    'shout',
  ];

  it('lists every server under its name on MCP-lite HTTP, MCP, gRPC and Webtools, transformed', async () => {
    const liteNames = (await (await open(base)).listTools()).map((t) => t.name);
    expect(liteNames).toEqual(expect.arrayContaining(EXPECTED));
    for (const name of ABSENT) expect(liteNames).not.toContain(name);

    const sdk = await sdkClient(mcpUrl);
    try {
      const { tools } = await sdk.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(EXPECTED));
      for (const name of ABSENT) expect(names).not.toContain(name);
      expect(tools.find((t) => t.name === 'every_echo')?.description).toBe('Repeats the message');
      const getPet = tools.find((t) => t.name === 'pets_getPet')!;
      expect(getPet.description).toBe('One pet\n\nBy its id.');
      expect(getPet.inputSchema).toMatchObject({
        properties: { petId: { type: 'integer' } },
        required: ['petId'],
      });
      // The $ref'd 2xx schema is the output schema, resolved.
      expect(getPet.outputSchema).toMatchObject({ properties: { id: { type: 'integer' } } });
      expect(tools.find((t) => t.name === 'pets_createPet')?.inputSchema).toMatchObject({
        properties: { body: { properties: { name: { type: 'string' } } } },
        required: ['body'],
      });
    } finally {
      await sdk.close();
    }

    const grpcNames = (await (await open(`grpc://${grpcAddress}`)).listTools()).map((t) => t.name);
    expect(grpcNames).toEqual(expect.arrayContaining(EXPECTED));

    const metadata = (await (await fetch(webtool)).json()) as { actions: Array<{ name: string }> };
    const actions = metadata.actions.map((a) => a.name);
    expect(actions).toEqual(expect.arrayContaining(EXPECTED));
    for (const name of ABSENT) expect(actions).not.toContain(name);
  });

  it('calls reach each server through each binding', async () => {
    const grpc = await open(`grpc://${grpcAddress}`);
    const sum = await grpc.call('every_add', { a: 40, b: 2 });
    expect(sum.type).toBe('answer');
    expect(JSON.stringify(sum)).toContain('42');
    expect(await grpc.call('pets_listPets', { limit: 1 })).toMatchObject({
      type: 'answer',
      value: { pets: [{ id: 1, name: 'Rex' }] },
    });

    const sdk = await sdkClient(mcpUrl);
    try {
      const shout = await sdk.callTool({ name: 'lite_shout', arguments: { text: 'via mcp' } });
      expect(JSON.stringify(shout.content)).toContain('VIA MCP');
      const echo = await sdk.callTool({ name: 'local_echo', arguments: { message: 'local via mcp' } });
      expect(JSON.stringify(echo.content)).toContain('local via mcp');
    } finally {
      await sdk.close();
    }

    const execute = async (body: unknown) => {
      const res = await fetch(webtool, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await execute({ action: 'pets_getPet', request: { petId: 2 } })).toEqual({
      status: 200,
      body: { status: 'ok', data: { id: 2, name: 'Tom' } },
    });
    expect(await execute({ action: 'every_echo', request: { message: 'wt' } })).toEqual({
      status: 200,
      body: { status: 'ok', data: 'Echo: wt' },
    });

    const http = await open(base);
    const created = await http.call('pets_createPet', { body: { name: 'Kit' } });
    expect(created).toMatchObject({ type: 'answer', value: { id: 3, name: 'Kit' } });
    // A 4xx is a failure outcome with the status and the body.
    const missing = await http.call('pets_getPet', { petId: 99 });
    expect(missing).toMatchObject({
      type: 'failure',
      code: 'http_404',
      details: { status: 404, body: { error: 'no pet 99' } },
    });
    // The key came from the gateway's environment, on every request.
    expect(api.keys.length).toBeGreaterThanOrEqual(4);
    expect(new Set(api.keys)).toEqual(new Set([API_KEY]));
  });

  it('streams upstream progress and asks an upstream elicitation of the caller (official SDK client)', async () => {
    const http = await open(base);
    // server-everything registers its elicitation tool once it knows the client can answer: list_changed.
    await expect
      .poll(async () => (await http.listTools()).map((t) => t.name), { timeout: 20_000, interval: 200 })
      .toContain('every_trigger-elicitation-request');
    const asked: string[] = [];
    const sdk = await sdkClient(mcpUrl, (message) => {
      asked.push(message);
      return { name: 'Ada Lovelace' };
    });
    try {
      const progress: number[] = [];
      const long = await sdk.callTool(
        { name: 'every_trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } },
        undefined,
        { onprogress: (p) => progress.push(p.progress) },
      );
      expect(JSON.stringify(long.content)).toContain('Long running operation completed');
      expect(progress.length).toBeGreaterThanOrEqual(1);

      const elicited = await sdk.callTool({ name: 'every_trigger-elicitation-request', arguments: {} });
      expect(asked).toHaveLength(1);
      expect(JSON.stringify(elicited.content)).toContain('Ada Lovelace');
    } finally {
      await sdk.close();
    }
  });

  it("an upstream's list_changed updates the catalog and tells connected MCP clients", async () => {
    const sdk = await sdkClient(mcpUrl);
    let told = 0;
    sdk.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      told++;
    });
    try {
      expect((await sdk.listTools()).tools.map((t) => t.name)).not.toContain('local_grown');
      await sdk.callTool({ name: 'local_grow', arguments: {} });
      await expect
        .poll(async () => (await sdk.listTools()).tools.map((t) => t.name), { timeout: 10_000 })
        .toContain('local_grown');
      await expect.poll(() => told, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
      const grown = await sdk.callTool({ name: 'local_grown', arguments: {} });
      expect(JSON.stringify(grown.content)).toContain('grown here');
    } finally {
      await sdk.close();
    }
  });

  it('bounds an upstream: calls past its timeout end, calls past its in-flight bound are refused at once', async () => {
    const http = await open(base);
    // Past the 2500 ms timeout: the call (a promise after the 1500 ms budget) ends in deadline_exceeded.
    const late = await errorOf(http, 'lite_slow', { ms: 5000 });
    expect(late.error?.code).toBe('deadline_exceeded');
    expect(late.error?.message).toContain('lite');
    // Two calls in flight (its maxInFlight): a third is refused at once, naming the upstream.
    // Both held on the upstream until the third has been refused.
    const first = http.call('lite_slow', { ms: 0, hold: true });
    const second = http.call('lite_slow', { ms: 0, hold: true });
    await expect.poll(() => held.count, { timeout: 10_000 }).toBe(2);
    const third = await errorOf(http, 'lite_slow', { ms: 10 });
    held.released.resolve();
    expect(third.error?.code).toBe('resource_exhausted');
    expect(third.error?.message).toMatch(/^Upstream lite .* already runs 2 calls/);
    expect(await first).toMatchObject({ type: 'answer', value: 'slept 0' });
    expect(await second).toMatchObject({ type: 'answer', value: 'slept 0' });
    // The other servers were never touched.
    expect(await http.call('lite_shout', { text: 'ok' })).toMatchObject({ type: 'answer', value: 'OK' });
  });

  it('a killed upstream: its tools fail fast naming it, the others never do, and it is restarted', async () => {
    const http = await open(base);
    const grpc = await open(`grpc://${grpcAddress}`);
    const before = await http.call('local_pid');
    expect(before.type).toBe('answer');
    const pid = Number((before as { value: unknown }).value);
    writeFileSync(downFile, '');
    process.kill(pid, 'SIGKILL');
    await expect
      .poll(async () => (await errorOf(http, 'local_echo', { message: 'x' })).error?.code ?? 'answered', {
        timeout: 15_000,
        interval: 100,
      })
      .toBe('unavailable');
    const refused = await errorOf(http, 'local_echo', { message: 'x' });
    expect(refused.error?.message).toMatch(
      /^Upstream local \(.*gateway-stdio-upstream\.ts.*\) is unavailable/,
    );
    expect(refused.ms).toBeLessThan(2_000);
    // Meanwhile every other server answers, on every binding.
    for (let i = 0; i < 3; i++) {
      expect(await http.call('every_echo', { message: `still ${i}` })).toMatchObject({
        type: 'answer',
        value: `Echo: still ${i}`,
      });
      expect(await grpc.call('lite_shout', { text: 'up' })).toMatchObject({ type: 'answer', value: 'UP' });
      expect(await http.call('pets_getPet', { petId: 1 })).toMatchObject({
        type: 'answer',
        value: { id: 1, name: 'Rex' },
      });
    }
    // The gateway stays ready: one upstream down costs only its own tools.
    expect((await fetch(new URL('/readyz', base))).status).toBe(200);
    rmSync(downFile);
    await expect
      .poll(async () => (await errorOf(http, 'local_echo', { message: 'back' })).error?.code ?? 'answered', {
        timeout: 40_000,
        interval: 200,
      })
      .toBe('answered');
    const after = await http.call('local_pid');
    expect(Number((after as { value: unknown }).value)).not.toBe(pid);
    expect(proxy.stderr()).toContain('upstream down, reconnecting');
  });
});
