/**
 * The gRPC server announces how many calls one connection may have open at once (HTTP/2 SETTINGS
 * MAX_CONCURRENT_STREAMS), so that a client with thousands to send queues them on its side: read here from the
 * SETTINGS a real node:http2 client receives, for `serve`'s defaults, a chosen limit and none.
 */
import { connect } from 'node:http2';
import { afterAll, describe, expect, it } from 'vitest';
import { listenGrpc } from '../../src/bindings/grpc/index.js';
import { createServer, defineTool } from '../../src/index.js';
import { serve } from '../../src/node.js';

const tools = [
  defineTool({
    name: 'noop',
    description: 'Does nothing',
    inputSchema: { type: 'object' },
    handler: () => 'ok',
  }),
];
const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** The MAX_CONCURRENT_STREAMS the server at `address` sends in its SETTINGS (undefined when it sends none). */
async function announcedStreams(address: string): Promise<number | undefined> {
  const session = connect(`http://${address}`);
  try {
    await new Promise<void>((resolve, reject) => {
      session.once('remoteSettings', () => resolve());
      session.once('error', reject);
    });
    const max = session.remoteSettings.maxConcurrentStreams;
    // node:http2 reports the protocol's default (no limit) as 2^32 - 1 when the server sent none.
    return max === undefined || max >= 2 ** 32 - 1 ? undefined : max;
  } finally {
    session.close();
  }
}

describe('gRPC streams per connection', () => {
  it('serve announces twice maxCallsPerConnection (512) by default', async () => {
    const running = await serve(createServer({ tools }), { port: 0, grpcPort: 0 });
    closers.push(() => running.close());
    expect(await announcedStreams(running.grpc!.address)).toBe(512);
  });

  it('follows maxCallsPerConnection, takes maxStreamsPerConnection, and announces none for 0', async () => {
    const server = createServer({ tools });
    closers.push(() => server.close());
    const follows = await listenGrpc(server, { port: 0, maxCallsPerConnection: 10 });
    const chosen = await listenGrpc(server, { port: 0, maxStreamsPerConnection: 64 });
    const none = await listenGrpc(server, { port: 0, maxStreamsPerConnection: 0 });
    closers.push(
      () => follows.close(),
      () => chosen.close(),
      () => none.close(),
    );
    expect(await announcedStreams(follows.address)).toBe(20);
    expect(await announcedStreams(chosen.address)).toBe(64);
    expect(await announcedStreams(none.address)).toBeUndefined();
  });
});
