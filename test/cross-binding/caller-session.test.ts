/**
 * Caller sessions (MCP-lite context, spec 2.2; docs/tools.md): a tool counts its caller's calls in `ctx.session`.
 * A session set by one call is seen by the next call of the same client on MCP-lite HTTP, WebSocket, stdio and
 * gRPC, and over MCP (the mcplite client keeps it per connection; raw wires send it back by hand). Another
 * principal's token sending the first's session, a tampered session, another server's and a stale one are
 * ignored (the count starts again) with one warn line that holds nothing of the token; the foreign and the
 * tampered one on gRPC (metadata `mcplite-session`, a client generated from the shipped proto), WebSocket and
 * stdio too.
 */
import { PassThrough } from 'node:stream';
import { credentials, loadPackageDefinition, Metadata, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultProtoPath } from '../../src/bindings/grpc/proto.js';
import { fromStruct } from '../../src/bindings/grpc/struct.js';
import { serveMcpLiteStdio } from '../../src/bindings/mcp-lite/stdio/index.js';
import { type Client, connect } from '../../src/client/index.js';
import { proxyTools } from '../../src/gateway/index.js';
import {
  bearerAuth,
  createServer,
  type Logger,
  type ToolDefinition,
  type ToolServer,
} from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { jsonLines } from '../support/json-lines.js';
import { latch } from '../support/latch.js';
import { callMessage, rpc } from '../support/mcp-lite-http.js';
import { connectWs } from '../support/ws-client.js';

const ALICE = 'alice-token';
const BOB = 'bob-token';

/** Counts the caller's calls in its session. */
const counter: ToolDefinition = {
  name: 'count',
  description: "Counts this caller's calls",
  handler: async (_args: Record<string, never>, ctx) => {
    const n = ((ctx.session as { n?: number } | undefined)?.n ?? 0) + 1;
    ctx.setSession({ n });
    // A partial (when the call streams) sends the result after the first message: the session must still come.
    await ctx.partial({ counting: n });
    return { n };
  },
};

/** Tries to keep too much: the tool's author gets the refusal. */
const hoarder: ToolDefinition = {
  name: 'hoard',
  description: 'Sets a session over the bound',
  handler: (_args: Record<string, never>, ctx) => {
    try {
      ctx.setSession({ blob: 'x'.repeat(5000) });
      return { refused: false };
    } catch (err) {
      return { refused: true, message: (err as Error).message };
    }
  },
};

/** Opened by the test once the long-running call answered with its promise. */
let release = latch();

/** Long-running: sets the session only once its promise was answered, which no result carries. */
const lateCounter: ToolDefinition = {
  name: 'late_count',
  description: 'Sets the session in background work',
  longRunning: { estimatedMs: 100 },
  handler: async (_args: Record<string, never>, ctx) => {
    await release.promise;
    ctx.setSession({ n: 99 });
    return { set: true };
  },
};

/** Every warn line a server wrote, with its fields. */
const warnings: Array<{ fields: unknown; msg: string | undefined }> = [];
const capture: Logger = {
  debug() {},
  info() {},
  warn(fields, msg) {
    warnings.push({ fields, msg });
  },
  error() {},
  child: () => capture,
};

function makeServer(name: string, auth: boolean): ToolServer {
  return createServer({
    name,
    secret: 'replicas-share-this',
    tools: [counter, hoarder, lateCounter],
    logger: capture,
    ...(auth ? { authenticate: bearerAuth([ALICE, BOB]) } : {}),
  });
}

let guarded: ToolServer;
let running: RunningServer;
const base = () => `${running.url}/mcp-lite/v1`;
const as = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  guarded = makeServer('counter', true);
  running = await serve(guarded, { port: 0, grpcPort: 0 });
});
afterAll(async () => {
  await running?.close(1000);
});

/** One raw MCP-lite HTTP call of `count` with `session` (if any) sent back: the count and the session returned. */
async function countOverHttp(token: string, session?: string): Promise<{ n: number; session: string }> {
  const reply = await rpc(
    `${base()}/rpc`,
    callMessage(1, 'count', {}, session === undefined ? {} : { _meta: { session } }),
    as(token),
  );
  return { n: reply.result!.content.n, session: reply.result!._meta.session };
}

/** The warn lines about ignored sessions written while `run` ran. */
async function ignoredWhile(
  run: () => Promise<void>,
): Promise<Array<{ fields: any; msg: string | undefined }>> {
  const from = warnings.length;
  await run();
  return warnings.slice(from).filter((w) => w.msg === 'caller session ignored');
}

async function countThrice(client: Client): Promise<unknown[]> {
  const seen = [];
  for (let i = 0; i < 3; i++) seen.push(await client.call('count', {}));
  return seen.map((o) => (o as { value?: unknown }).value);
}

describe('a session set by one call is seen by the next call of the same client', () => {
  it('over MCP-lite HTTP, gRPC and MCP over gRPC with the mcplite client, which keeps it per connection', async () => {
    for (const [target, binding] of [
      [base(), undefined],
      [`grpc://${running.grpc!.address}`, undefined],
      [`grpc://${running.grpc!.address}`, 'mcp-grpc'],
    ] as const) {
      const client = await connect(target, { token: ALICE, ...(binding ? { binding } : {}) });
      try {
        expect(await countThrice(client)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      } finally {
        await client.close();
      }
      // A new connection object starts with an empty jar.
      const fresh = await connect(target, { token: ALICE, ...(binding ? { binding } : {}) });
      try {
        expect((await fresh.call('count', {})) as object).toMatchObject({ value: { n: 1 } });
      } finally {
        await fresh.close();
      }
    }
  });

  it('over streaming calls too: MCP-lite SSE and gRPC CallToolStream', async () => {
    for (const target of [base(), `grpc://${running.grpc!.address}`]) {
      const client = await connect(target, { token: ALICE });
      const partials: unknown[] = [];
      try {
        for (const n of [1, 2]) {
          const outcome = await client.call('count', {}, { onPartial: (p) => partials.push(p) });
          expect(outcome).toMatchObject({ value: { n } });
        }
        expect(partials).toEqual([{ counting: 1 }, { counting: 2 }]);
      } finally {
        await client.close();
      }
    }
  });

  it('over MCP (stateless and handshake revisions) in _meta["mcplite/session"]', async () => {
    for (const mcpRevision of ['stateless', 'handshake'] as const) {
      const client = await connect(`${running.url}/mcp`, { token: ALICE, mcpRevision });
      try {
        expect(await countThrice(client)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      } finally {
        await client.close();
      }
    }
  });

  it('over the MCP-lite WebSocket, the session sent back in params._meta.session', async () => {
    const ws = await connectWs(`${base().replace('http', 'ws')}/ws`, { headers: as(ALICE) });
    try {
      const first = await ws.request('tools/call', { name: 'count', arguments: {} });
      expect(first.result.content).toEqual({ n: 1 });
      const session = first.result._meta.session;
      expect(typeof session).toBe('string');
      const second = await ws.request('tools/call', { name: 'count', arguments: {}, _meta: { session } });
      expect(second.result.content).toEqual({ n: 2 });
    } finally {
      ws.ws.close();
    }
  });

  it('over MCP-lite stdio', async () => {
    const open = makeServer('counter', false);
    const input = new PassThrough();
    const output = new PassThrough();
    const stdio = serveMcpLiteStdio(open, { input, output });
    const lines = jsonLines(output);
    const call = (id: number, meta?: Record<string, unknown>) => {
      input.write(`${JSON.stringify(callMessage(id, 'count', {}, meta ? { _meta: meta } : {}))}\n`);
      return lines.next((m) => m.id === id);
    };
    try {
      const first = await call(1);
      expect(first.result.content).toEqual({ n: 1 });
      const second = await call(2, { session: first.result._meta.session });
      expect(second.result.content).toEqual({ n: 2 });
      const third = await call(3, { session: second.result._meta.session });
      expect(third.result.content).toEqual({ n: 3 });
    } finally {
      input.end();
      stdio.close();
    }
  });
});

describe('a session is never trusted beyond its caller and server', () => {
  it("is ignored for another principal that sends the first one's session", async () => {
    const alice = await countOverHttp(ALICE);
    expect((await countOverHttp(ALICE, alice.session)).n).toBe(2);
    let bob: { n: number; session: string } | undefined;
    const ignored = await ignoredWhile(async () => {
      bob = await countOverHttp(BOB, alice.session);
    });
    expect(bob!.n).toBe(1);
    expect(ignored).toHaveLength(1);
    expect(ignored[0]!.fields).toEqual({ reason: 'wrong_caller' });
    expect(JSON.stringify(ignored)).not.toContain(alice.session.slice(0, 20));
    // Bob's own session counts on from his own calls only.
    expect((await countOverHttp(BOB, bob!.session)).n).toBe(2);
  });

  it('is ignored when tampered with, whatever was changed', async () => {
    const { session } = await countOverHttp(ALICE);
    const [body, mac] = session.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    const raised = Buffer.from(JSON.stringify({ ...payload, v: '{"n":100}' })).toString('base64url');
    const flipped = `${mac.slice(0, 5)}${mac[5] === 'A' ? 'B' : 'A'}${mac.slice(6)}`;
    for (const forged of [`${raised}.${mac}`, `${body}.${flipped}`, 'not-a-token', body]) {
      let n = 0;
      const ignored = await ignoredWhile(async () => {
        n = (await countOverHttp(ALICE, forged)).n;
      });
      expect(n).toBe(1);
      expect(ignored).toHaveLength(1);
      expect(['forged', 'malformed']).toContain(ignored[0]!.fields.reason);
    }
  });

  it('is ignored by another server that shares the secret', async () => {
    const { session } = await countOverHttp(ALICE);
    const other = makeServer('another-counter', true);
    const otherRunning = await serve(other, { port: 0 });
    try {
      const ignored = await ignoredWhile(async () => {
        const reply = await rpc(
          `${otherRunning.url}/mcp-lite/v1/rpc`,
          callMessage(1, 'count', {}, { _meta: { session } }),
          as(ALICE),
        );
        expect(reply.result!.content).toEqual({ n: 1 });
      });
      expect(ignored.map((w) => w.fields)).toEqual([{ reason: 'wrong_server' }]);
    } finally {
      await otherRunning.close(1000);
    }
  });

  it('refuses a session over 4 KiB to the tool author, and the call sets none', async () => {
    const reply = await rpc(`${base()}/rpc`, callMessage(1, 'hoard', {}), as(ALICE));
    expect(reply.result!.content).toMatchObject({ refused: true });
    expect(reply.result!.content.message).toMatch(/over the 4096-byte bound/);
    expect(reply.result!._meta.session).toBeUndefined();
  });

  it('set in promised work after the promise was answered, is ignored with a warn line', async () => {
    release = latch();
    const promised = await rpc(`${base()}/rpc`, callMessage(1, 'late_count', {}), as(ALICE));
    expect(promised.result!._meta).toMatchObject({ response_type: 'promise' });
    expect(promised.result!._meta.session).toBeUndefined();
    const from = warnings.length;
    release.resolve();
    const settled = await rpc(
      `${base()}/rpc`,
      callMessage(2, 'redeem', { promise: promised.result!._meta.promise_token, wait_ms: 5000 }),
      as(ALICE),
    );
    expect(settled.result!.content).toEqual({ set: true });
    expect(settled.result!._meta.session).toBeUndefined();
    expect(warnings.slice(from).map((w) => w.msg)).toContain(
      'ctx.setSession ignored: the call already answered (a promise); the session is not sent',
    );
  });

  it('expires after sessionTtlMs', async () => {
    const stale = createServer({
      name: 'counter',
      secret: 'replicas-share-this',
      tools: [counter],
      logger: capture,
      sessionTtlMs: -1,
    });
    const first = await stale.callTool({ name: 'count', arguments: {} });
    const ignored = await ignoredWhile(async () => {
      const second = await stale.callTool({ name: 'count', arguments: {}, session: first.meta.session! });
      expect(second.outcome).toMatchObject({ type: 'answer', result: { n: 1 } });
    });
    expect(ignored.map((w) => w.fields)).toEqual([{ reason: 'expired' }]);
    await stale.close();
  });
});

/** A session token with one character of its signature changed. */
function tampered(session: string): string {
  const [body, mac] = session.split('.') as [string, string];
  return `${body}.${mac.slice(0, 5)}${mac[5] === 'A' ? 'B' : 'A'}${mac.slice(6)}`;
}

/** One `count` over a wire, as `token`'s caller, sending `session` back: the count and the session returned. */
type Count = (token: string, session?: string) => Promise<{ n: number; session: string }>;

/** `count` over mcplite.MCPLite CallTool with a client generated from the shipped proto; the session in metadata. */
function grpcCounter(address: string): { count: Count; close(): void } {
  const pkg = loadPackageDefinition(
    loadSync(defaultProtoPath(), { keepCase: true, longs: Number, enums: String, oneofs: true }),
  ) as any;
  const client = new pkg.mcplite.MCPLite(address, credentials.createInsecure());
  const count: Count = (token, session) =>
    new Promise((resolve, reject) => {
      const metadata = new Metadata();
      metadata.set('authorization', `Bearer ${token}`);
      if (session !== undefined) metadata.set('mcplite-session', session);
      let reply: any;
      let trailer: string | undefined;
      let pending = 2;
      const settle = () => {
        if (--pending === 0) resolve({ n: (fromStruct(reply.result) as any).content.n, session: trailer! });
      };
      const call = client.CallTool(
        { name: 'count', arguments: { fields: {} } },
        metadata,
        (err: ServiceError | null, r: any) => {
          if (err) return reject(err);
          reply = r;
          settle();
        },
      );
      call.on('status', (s: { metadata: Metadata }) => {
        trailer = s.metadata.get('mcplite-session')[0] as string | undefined;
        settle();
      });
    });
  return { count, close: () => client.close() };
}

describe('on every MCP-lite wire, a session is not trusted beyond its caller', () => {
  it("gRPC and WebSocket ignore another principal's session and a tampered one", async () => {
    const grpc = grpcCounter(running.grpc!.address);
    const sockets = new Map<string, Awaited<ReturnType<typeof connectWs>>>();
    const wsCount: Count = async (token, session) => {
      let ws = sockets.get(token);
      if (!ws) {
        ws = await connectWs(`${base().replace('http', 'ws')}/ws`, { headers: as(token) });
        sockets.set(token, ws);
      }
      const reply = await ws.request('tools/call', {
        name: 'count',
        arguments: {},
        ...(session === undefined ? {} : { _meta: { session } }),
      });
      return { n: reply.result.content.n, session: reply.result._meta.session };
    };
    try {
      for (const [wire, count] of [
        ['gRPC', grpc.count],
        ['WebSocket', wsCount],
      ] as const) {
        const first = await count(ALICE);
        const second = await count(ALICE, first.session);
        expect([wire, second.n]).toEqual([wire, 2]);
        const foreign = await ignoredWhile(async () => {
          expect([wire, (await count(BOB, second.session)).n]).toEqual([wire, 1]);
        });
        expect(foreign.map((w) => w.fields)).toEqual([{ reason: 'wrong_caller' }]);
        const forged = await ignoredWhile(async () => {
          expect([wire, (await count(ALICE, tampered(second.session))).n]).toEqual([wire, 1]);
        });
        expect(forged.map((w) => w.fields)).toEqual([{ reason: 'forged' }]);
      }
    } finally {
      grpc.close();
      for (const ws of sockets.values()) ws.ws.close();
    }
  });

  it('stdio ignores a tampered session', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const stdio = serveMcpLiteStdio(makeServer('counter', false), { input, output });
    const lines = jsonLines(output);
    const call = (id: number, session?: string) => {
      input.write(`${JSON.stringify(callMessage(id, 'count', {}, session ? { _meta: { session } } : {}))}\n`);
      return lines.next((m) => m.id === id);
    };
    try {
      const first = await call(1);
      const forged = await ignoredWhile(async () => {
        expect((await call(2, tampered(first.result._meta.session))).result.content).toEqual({ n: 1 });
      });
      expect(forged.map((w) => w.fields)).toEqual([{ reason: 'forged' }]);
    } finally {
      input.end();
      stdio.close();
    }
  });
});

describe('a connection shared by several callers keeps no session', () => {
  it("a gateway's upstream connection never carries one caller's session to the next", async () => {
    const upstream = await serve(makeServer('counter', false), { port: 0 });
    const proxied = await proxyTools(`${upstream.url}/mcp-lite/v1/`, { prefix: 'up' });
    const host = await serve(createServer({ name: 'host', tools: proxied, logger: capture }), { port: 0 });
    try {
      const name = proxied.map((t) => t.name).find((n) => n.endsWith('count') && !n.includes('late'))!;
      const counts = [];
      for (let i = 0; i < 2; i++) {
        const reply = await rpc(`${host.url}/mcp-lite/v1/rpc`, callMessage(i, name, {}));
        counts.push(reply.result!.content);
      }
      expect(counts).toEqual([{ n: 1 }, { n: 1 }]);
    } finally {
      await host.close(1000);
      await proxied.close();
      await upstream.close(1000);
    }
  });
});
