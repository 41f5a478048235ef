/**
 * One caller cannot hold every slot of an upstream: the gateway gives each caller (its principal, else its
 * address) at most `maxInFlightPerCaller` of an upstream's `maxInFlight` exchanges. Principal A holds its one slot
 * with a call the upstream keeps open until the test lets it go; A's next call is refused (`caller_busy`), while
 * principal B is served at once. No timing: the upstream says when the held call has arrived.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { bearerAuth } from '../../src/core/auth.js';
import type { McpLiteError } from '../../src/core/errors.js';
import { createServer } from '../../src/create-server.js';
import { Gateway } from '../../src/gateway/gateway.js';
import { openUpstream } from '../../src/gateway/proxy-tools.js';
import { type RunningServer, serve } from '../../src/serve.js';

let release: () => void = () => {};
const released = new Promise<void>((resolve) => {
  release = resolve;
});
let arrived: () => void = () => {};
const held = new Promise<void>((resolve) => {
  arrived = resolve;
});

const upstreamServer = createServer({
  name: 'upstream',
  tools: [
    {
      name: 'hold',
      handler: async () => {
        arrived();
        await released;
        return 'held';
      },
    },
    { name: 'ok', handler: () => 'ok' },
  ],
});

let upstream: RunningServer;
let front: RunningServer;
let gateway: Gateway;

beforeAll(async () => {
  upstream = await serve(upstreamServer, { port: 0, grpcPort: false });
  const server = createServer({
    name: 'gateway',
    tools: [],
    authenticate: bearerAuth(['token-a', 'token-b']),
    // The held call stays a plain call: no promise to redeem while the test holds it.
    answerBudgetMs: 120_000,
  });
  gateway = new Gateway(server);
  await gateway.add(
    'up',
    await openUpstream(`${upstream.url}/mcp-lite/v1/`, {
      prefix: 'up',
      maxInFlight: 4,
      maxInFlightPerCaller: 1,
    }),
    true,
  );
  front = await serve(server, { port: 0, grpcPort: false });
});

afterAll(async () => {
  release();
  await front?.close(500);
  await gateway?.close();
  await upstream?.close(500);
});

it('refuses a caller past its share of an upstream while another caller is served', async () => {
  const a = await connect(`${front.url}/mcp-lite/v1/`, { token: 'token-a' });
  const b = await connect(`${front.url}/mcp-lite/v1/`, { token: 'token-b' });
  try {
    const first = a.call('up_hold', {});
    await held;
    const refused = (await a.call('up_ok', {}).then(
      () => undefined,
      (err: unknown) => err,
    )) as McpLiteError;
    expect(refused).toMatchObject({ code: 'resource_exhausted' });
    expect(refused.data).toMatchObject({ reason: 'caller_busy', upstream: expect.any(String), limit: 1 });
    // Another principal still gets one of the upstream's slots.
    expect(await b.call('up_ok', {})).toMatchObject({ type: 'answer', value: 'ok' });
    release();
    expect(await first).toMatchObject({ type: 'answer', value: 'held' });
    // A's slot is free again once its call ended.
    expect(await a.call('up_ok', {})).toMatchObject({ type: 'answer', value: 'ok' });
  } finally {
    await a.close();
    await b.close();
  }
});
