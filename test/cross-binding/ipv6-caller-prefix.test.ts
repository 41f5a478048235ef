/**
 * IPv6 callers are counted by their /64 (issue 29) on every binding, over real sockets. Where the machine lets a
 * test make a network namespace of its own (`unshare -n`), the probe (test/support/ipv6-prefix-probe.ts) runs in
 * one whose loopback carries two addresses of one /64 and one of another, and calls from each: the two addresses
 * of one /64 share every per-caller bound (gRPC calls in flight, the rate limit, MCP sessions), the other /64 does
 * not, and `ipv6CallerPrefix: 128` tells them apart again. Everywhere, two connections from `::1` are one caller.
 * The key itself: src/core/address-key.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { status } from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';
import { listenGrpc } from '../../src/bindings/grpc/index.js';
import type { ToolDefinition } from '../../src/core/tool.js';
import { createServer } from '../../src/create-server.js';
import { makeClient, toolRequest, unary } from '../support/grpc-client.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SETUP = [
  'ip link set lo up',
  'ip addr add 2001:db8:1:2::10/64 dev lo nodad',
  'ip addr add 2001:db8:1:2::20/64 dev lo nodad',
  'ip addr add 2001:db8:1:3::10/64 dev lo nodad',
].join(' && ');

/** The `unshare` flags that give this process a network namespace where it may add addresses, if any do. */
function namespaceFlags(): string[] | undefined {
  for (const flags of [['-n'], ['-rn']]) {
    const probe = spawnSync('unshare', [...flags, 'sh', '-c', SETUP], { stdio: 'ignore', timeout: 10_000 });
    if (probe.status === 0) return flags;
  }
  return undefined;
}

const flags = namespaceFlags();

describe('IPv6 callers counted by prefix', () => {
  it.skipIf(!flags)(
    'two addresses of one /64 share every per-caller bound; another /64 does not',
    async () => {
      const script = `${SETUP} && exec "${process.execPath}" --import tsx test/support/ipv6-prefix-probe.ts`;
      const child = spawn('unshare', [...flags!, 'sh', '-c', script], { cwd: ROOT });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => {
        out += d;
      });
      child.stderr.on('data', (d) => {
        err += d;
      });
      const code = await new Promise<number | null>((r) => child.on('close', r));
      expect(code, err).toBe(0);
      const seen = JSON.parse(out.trim().split('\n').at(-1)!);

      // gRPC, at most one call in flight per caller: B is refused while A (its /64) holds one; OTHER is not.
      expect(seen.grpc).toEqual({ a: 'admitted', b: status.RESOURCE_EXHAUSTED, other: 'admitted' });
      // ipv6CallerPrefix: 128 counts each address apart.
      expect(seen.grpcPrefix128).toEqual({ a: 'admitted', b: 'admitted', other: 'admitted' });
      // Authenticated callers are their principals, wherever they connect from.
      expect(seen.principals).toEqual({ t0FromA: 'admitted', t1FromB: 'admitted' });
      // The rate limit (one token per caller, core, over MCP-lite HTTP) and MCP sessions per caller (Streamable HTTP).
      expect(seen.rate).toEqual({ a: 200, b: 429, other: 200 });
      expect(seen.sessions).toEqual({ a: 200, b: 429, other: 200 });
    },
    60_000,
  );

  describe('over ::1', () => {
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let started = 0;
    const tools: ToolDefinition[] = [
      {
        name: 'hold',
        handler: async () => {
          started++;
          await released;
          return 'held';
        },
      },
    ];
    const server = createServer({ tools });
    const clients: Array<{ close(): void }> = [];
    afterAll(async () => {
      release();
      for (const c of clients) c.close();
      await server.close();
    });

    it('counts two connections from ::1 as one caller (an IPv6 peer is read as its address)', async () => {
      const grpc = await listenGrpc(server, { host: '::1', maxCallsPerCaller: 1 });
      try {
        const first = makeClient(grpc.address, 'spec', { 'grpc.use_local_subchannel_pool': 1 });
        const second = makeClient(grpc.address, 'spec', { 'grpc.use_local_subchannel_pool': 1 });
        clients.push(first, second);
        const held = unary(first, 'CallTool', toolRequest('hold'));
        const deadline = Date.now() + 10_000;
        while (started === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        expect(started).toBe(1);
        const refused = await unary(second, 'CallTool', toolRequest('hold'));
        expect(refused.error?.code).toBe(status.RESOURCE_EXHAUSTED);
        expect(refused.error?.details).toMatch(/from this caller/);
        release();
        expect((await held).error).toBeUndefined();
      } finally {
        await grpc.close(100);
      }
    });
  });
});
