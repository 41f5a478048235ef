/**
 * Promises are bounded and belong to their caller (the hardening issue's attacks, kept as tests): with bearer auth
 * a promise is unknown to every other principal on every binding; one caller past its promise quota gets its own
 * clear error (-32004 / 429 / RESOURCE_EXHAUSTED) while another caller's settled promise stays redeemable; and
 * promised calls run at most `maxConcurrentWork` at once, the rest waiting their turn. Real servers on loopback
 * ports, real clients (fetch, grpc-js).
 */
import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { bearerAuth, createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { bearer, makeClient, toolRequest, unary } from '../support/grpc-client.js';

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close(1000)));
});

let active = 0;
let peak = 0;
const tools = [
  {
    name: 'slow',
    longRunning: { estimatedMs: 100 },
    handler: async (args: Record<string, unknown>) => {
      active++;
      peak = Math.max(peak, active);
      try {
        await new Promise((resolve) => setTimeout(resolve, Number(args.ms ?? 50)));
        return { done: args.n ?? true };
      } finally {
        active--;
      }
    },
  },
];

async function start(options: Partial<Parameters<typeof createServer>[0]> = {}): Promise<RunningServer> {
  const r = await serve(createServer({ tools, ...options }), { port: 0, grpcPort: 0 });
  running.push(r);
  return r;
}

function rpc(url: string, name: string, args: Record<string, unknown>, token?: string) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
}

async function promiseOf(url: string, token?: string, args: Record<string, unknown> = {}): Promise<string> {
  const res = await rpc(url, 'slow', args, token);
  const body = (await res.json()) as any;
  expect(body.result?._meta?.response_type, JSON.stringify(body)).toBe('promise');
  return body.result._meta.promise_token as string;
}

describe('promises belong to the principal that made them', () => {
  it('MCP-lite HTTP: token B can neither redeem nor cancel what token A made; A can', async () => {
    const r = await start({ authenticate: bearerAuth(['token-a', 'token-b']) });
    const url = `${r.url}/mcp-lite/v1/rpc`;
    const promise = await promiseOf(url, 'token-a', { ms: 200 });
    for (const tool of ['redeem', 'cancel']) {
      const res = await rpc(url, tool, { promise }, 'token-b');
      const body = (await res.json()) as any;
      expect(body.error, tool).toMatchObject({ code: -32602, message: 'Unknown promise token' });
    }
    const redeemed = (await (await rpc(url, 'redeem', { promise, wait_ms: 5000 }, 'token-a')).json()) as any;
    expect(redeemed.result._meta.response_type).toBe('answer');
  });

  it('gRPC: NOT_FOUND for token B, the answer for token A', async () => {
    const r = await start({ authenticate: bearerAuth(['token-a', 'token-b']) });
    const client = makeClient(r.grpc!.address, 'full');
    try {
      const made = await unary(client, 'CallTool', toolRequest('slow', { ms: 200 }), {
        metadata: bearer('token-a'),
      });
      const promise = made.response.meta.promise_token;
      expect(promise).toMatch(/^prom_/);
      for (const tool of ['redeem', 'cancel']) {
        const other = await unary(client, 'CallTool', toolRequest(tool, { promise }), {
          metadata: bearer('token-b'),
        });
        expect(other.error?.code, tool).toBe(status.NOT_FOUND);
      }
      const mine = await unary(client, 'CallTool', toolRequest('redeem', { promise, wait_ms: 5000 }), {
        metadata: bearer('token-a'),
      });
      expect(mine.response.meta.response_type).toBe('ANSWER');
    } finally {
      client.close();
    }
  });
});

describe('promise quota per caller', () => {
  it("refuses the flooding caller with -32004 / 429 and never drops another caller's settled promise", async () => {
    const r = await start({ authenticate: bearerAuth(['flood', 'victim']), maxPromisesPerCaller: 20 });
    const url = `${r.url}/mcp-lite/v1/rpc`;
    const victims = await promiseOf(url, 'victim', { ms: 1, n: 'kept' });
    // Settled before the flood starts.
    expect(
      ((await (await rpc(url, 'redeem', { promise: victims, wait_ms: 5000 }, 'victim')).json()) as any)
        .result,
    ).toBeDefined();
    const replies = await Promise.all(
      Array.from({ length: 40 }, () =>
        rpc(url, 'slow', { ms: 1 }, 'flood').then(async (res) => ({
          status: res.status,
          body: (await res.json()) as any,
        })),
      ),
    );
    const refused = replies.filter((x) => x.status === 429);
    expect(replies.filter((x) => x.status === 200 && x.body.result)).toHaveLength(20);
    expect(refused).toHaveLength(20);
    expect(refused[0]!.body.error).toMatchObject({ code: -32004, data: { limit: 20, scope: 'caller' } });
    // The victim's settled promise is still there, and the victim may still make promises.
    const again = (await (await rpc(url, 'redeem', { promise: victims }, 'victim')).json()) as any;
    expect(again.result).toMatchObject({ content: { done: 'kept' } });
    await promiseOf(url, 'victim');
  });

  it('gRPC: RESOURCE_EXHAUSTED past the quota', async () => {
    const r = await start({ maxPromisesPerCaller: 2 });
    const client = makeClient(r.grpc!.address, 'full');
    try {
      const codes = [];
      for (let i = 0; i < 3; i++) {
        const o = await unary(client, 'CallTool', toolRequest('slow', { ms: 1 }));
        codes.push(o.error?.code ?? status.OK);
      }
      expect(codes).toEqual([status.OK, status.OK, status.RESOURCE_EXHAUSTED]);
    } finally {
      client.close();
    }
  });
});

describe('promised work runs at most maxConcurrentWork at once', () => {
  it('queues the rest in order and settles every promise', async () => {
    active = 0;
    peak = 0;
    const r = await start({ maxConcurrentWork: 2 });
    const url = `${r.url}/mcp-lite/v1/rpc`;
    const tokens = await Promise.all(
      Array.from({ length: 8 }, (_, n) => promiseOf(url, undefined, { ms: 60, n })),
    );
    const answers = await Promise.all(
      tokens.map(
        async (promise) => (await (await rpc(url, 'redeem', { promise, wait_ms: 10_000 })).json()) as any,
      ),
    );
    expect(answers.map((a) => a.result.content.done)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(peak).toBe(2);
  });
});
