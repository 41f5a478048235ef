/**
 * A call promoted past the answer budget keeps running on the replica that started it, under a lease in Redis.
 * While that replica lives, its lease is renewed and the promise stays pending however long the work takes; when
 * it dies (kill -9), another replica answers the promise as the failure `worker_lost` once the lease runs out,
 * never pending forever. Real Redis at REDIS_URL, the dying replica a real process.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/index.js';
import { RedisPromiseStore } from '../../src/stores/redis/index.js';
import { ROOT } from '../support/cli-process.js';
import { deletePrefix } from '../support/scale-cluster.js';

const url = process.env.REDIS_URL;
if (!url) console.warn('worker-lost tests skipped: REDIS_URL is not set (CI sets it; see .ci/run)');

describe.skipIf(!url)('promoted work under a lease (Redis)', () => {
  const prefix = `mcplite-test-lease-${randomBytes(4).toString('hex')}:`;
  let observer: ReturnType<typeof createServer>;
  let store: RedisPromiseStore;
  beforeAll(() => {
    store = new RedisPromiseStore({ url: url!, prefix });
    observer = createServer({ tools: [], promiseStore: store });
  });
  afterAll(async () => {
    await observer?.close();
    await deletePrefix(url!, prefix);
  });

  it('stays pending while its replica renews the lease, settles as worker_lost after a kill -9', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/leased-server.ts'], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: url, PREFIX: prefix, LEASE_MS: '600' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let out = '';
      const base = await new Promise<string>((resolve, reject) => {
        child.stdout!.on('data', (chunk) => {
          out += chunk;
          const m = /leased server on (\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`leased server exited (${code})`)));
      });
      const res = await fetch(`${base}rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'forever' } }),
      });
      const body = (await res.json()) as any;
      expect(body.result._meta.response_type).toBe('promise');
      const token = body.result._meta.promise_token as string;
      // Three renewals of the lease seen in the store (each moves its end on): the promise is pending, not lost.
      const leases = new Set<number>();
      await expect
        .poll(
          async () => {
            const lease = (await store.get(token))?.leaseUntil;
            if (lease !== undefined) leases.add(lease);
            return leases.size;
          },
          { timeout: 30_000, interval: 100 },
        )
        .toBeGreaterThanOrEqual(4);
      const alive = await observer.promises!.redeem(token, {}, 0);
      expect(alive.outcome.type).toBe('promise');
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      // Once the lease runs out another replica sees the loss (polled: never pending for ever).
      await expect
        .poll(async () => (await observer.promises!.redeem(token, {}, 0)).outcome, {
          timeout: 30_000,
          interval: 100,
        })
        .toMatchObject({ type: 'failure', code: 'worker_lost' });
      const lost = await observer.promises!.redeem(token, {}, 0);
      // Settled once: redeeming again gives the same failure.
      expect((await observer.promises!.redeem(token, {}, 0)).outcome).toEqual(lost.outcome);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});
