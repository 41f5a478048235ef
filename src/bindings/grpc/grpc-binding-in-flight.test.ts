/**
 * The gRPC binding's bounds on calls in flight, over real sockets with grpc-js clients that each keep their own
 * connection: past the bound on one connection (default 256), or on one caller across its connections, a call is
 * RESOURCE_EXHAUSTED while other clients are still answered, and the slots come back as calls end.
 */
import { type ServiceError, status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bearer,
  type McpLiteClient,
  makeClient,
  readStream,
  structToJson,
  toolRequest,
  unary,
} from '../../../test/support/grpc-client.js';
import { bearerAuth } from '../../core/auth.js';
import type { ToolServer } from '../../core/server.js';
import type { ToolDefinition } from '../../core/tool.js';
import { createServer } from '../../create-server.js';
import { type GrpcListening, type GrpcListenOptions, listenGrpc } from './index.js';

/** Held calls wait here until the test lets them go (or their client cancels). */
let gate: { open: () => void; opened: Promise<void> };
let started = 0;
let ended = 0;

function newGate(): void {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  gate = { open, opened };
}

const tools: ToolDefinition[] = [
  {
    name: 'hold',
    handler: async (_args, ctx) => {
      started++;
      await Promise.race([
        gate.opened,
        new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true })),
      ]);
      ended++;
      return { held: true };
    },
  },
  { name: 'echo', handler: (args: { message?: string }) => ({ echo: args.message ?? '' }) },
];

const open: Array<{ close(): void }> = [];
let running: { server: ToolServer; grpc: GrpcListening } | undefined;

async function start(options: GrpcListenOptions = {}, tokens?: string[]) {
  newGate();
  started = 0;
  ended = 0;
  const server = createServer({ tools, ...(tokens ? { authenticate: bearerAuth(tokens) } : {}) });
  const grpc = await listenGrpc(server, { port: 0, ...options });
  running = { server, grpc };
  return grpc;
}

/** A client on a connection of its own (grpc-js would otherwise share one connection per address). */
function client(address: string): McpLiteClient {
  const c = makeClient(address, 'spec', { 'grpc.use_local_subchannel_pool': 1 });
  open.push(c);
  return c;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

afterEach(async () => {
  gate?.open();
  for (const c of open.splice(0)) c.close();
  await running?.grpc.close(1000);
  await running?.server.close();
  running = undefined;
});

describe('gRPC calls in flight', () => {
  it('refuses calls past 256 on one connection with RESOURCE_EXHAUSTED while another client is answered', async () => {
    const grpc = await start();
    const greedy = client(grpc.address);
    const errors: ServiceError[] = [];
    let answered = 0;
    const track = (p: Promise<{ error?: ServiceError }>) =>
      p.then((o) => {
        if (o.error) errors.push(o.error);
        else answered++;
      });
    // Unary and streaming calls count alike: 264 at once on one connection, 8 past the bound.
    const calls = [
      ...Array.from({ length: 250 }, () => track(unary(greedy, 'CallTool', toolRequest('hold')))),
      ...Array.from({ length: 14 }, () =>
        track(readStream(greedy, toolRequest('hold')).then((s) => ({ error: s.error }))),
      ),
    ];
    await until(() => errors.length >= 8 && started >= 256, 'the bound to be reached');
    expect(started).toBe(256);
    expect(errors).toHaveLength(8);
    for (const e of errors) {
      expect(e.code).toBe(status.RESOURCE_EXHAUSTED);
      expect(e.details).toMatch(/on this connection \(at most 256\)/);
    }

    // Another client (same address, own connection) is still served at once.
    const other = client(grpc.address);
    const t0 = Date.now();
    const echo = await unary(other, 'CallTool', toolRequest('echo', { message: 'still here' }));
    expect(echo.error).toBeUndefined();
    expect(structToJson(echo.response.result)).toEqual({ content: { echo: 'still here' } });
    expect(Date.now() - t0).toBeLessThan(5_000);

    gate.open();
    await Promise.all(calls);
    expect(answered).toBe(256);
    // The slots came back: the same connection is served again.
    expect(
      (await unary(greedy, 'CallTool', toolRequest('echo', { message: 'again' }))).error,
    ).toBeUndefined();
  }, 60_000);

  it("bounds one caller across its connections, leaves other callers alone, and frees a cancelled call's slot", async () => {
    const grpc = await start({ maxCallsPerConnection: 4, maxCallsPerCaller: 6 }, [
      'alice-token',
      'bob-token',
    ]);
    const alice = bearer('alice-token');
    const first = client(grpc.address);
    const second = client(grpc.address);
    const hold = (c: McpLiteClient) => unary(c, 'CallTool', toolRequest('hold'), { metadata: alice });
    const firstCalls = Array.from(
      { length: 4 },
      () => first.CallTool(toolRequest('hold'), alice, () => {}) as { cancel(): void },
    );
    await until(() => started === 4, 'four held calls on the first connection');
    const secondHeld = [hold(second), hold(second)];
    await until(() => started === 6, 'two more on the second connection');

    // The second connection holds only two of its four, but Alice holds six in all.
    const refused = await Promise.all([hold(second), hold(second)]);
    for (const { error } of refused) {
      expect(error?.code).toBe(status.RESOURCE_EXHAUSTED);
      expect(error?.details).toMatch(/from this caller \(at most 6\)/);
    }

    // Bob is another caller: his calls run beside Alice's six.
    const bobClient = client(grpc.address);
    const bobHold = unary(bobClient, 'CallTool', toolRequest('hold'), { metadata: bearer('bob-token') });
    await until(() => started === 7, "Bob's held call");
    const bobEcho = await unary(bobClient, 'CallTool', toolRequest('echo'), {
      metadata: bearer('bob-token'),
    });
    expect(bobEcho.error).toBeUndefined();

    // Alice cancels her first connection's calls: their slots come back once their handlers end.
    for (const call of firstCalls) call.cancel();
    await until(() => ended === 4, 'the cancelled handlers to end');
    const again = hold(second);
    await until(() => started === 8, 'a call of Alice admitted again');
    gate.open();
    for (const outcome of await Promise.all([again, bobHold, ...secondHeld]))
      expect(outcome.error).toBeUndefined();
  }, 60_000);
});
