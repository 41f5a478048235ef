import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Cli, children, MAIN, ROOT, runCommand } from '../../test/support/cli-process.js';
import { newPromiseToken } from '../core/promises/token.js';
import { RedisPromiseStore } from '../stores/redis/promise-store.js';
import { BullMqWorkQueue } from '../stores/redis/queue.js';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) {
  console.warn(
    'src/cli/worker-command.test.ts: REDIS_URL is not set, so the tests that need Redis are skipped',
  );
}

const READY = /^mcplite worker ready \(queue (\S+), concurrency (\d+)\)$/m;
// One key prefix per run: the worker's queue and promises never meet another run's.
const PREFIX = `mcplite-test-w-${process.pid}-${randomUUID().slice(0, 8)}`;

/** The built CLI when `npm run build` made it from the current sources (CI builds first), else the sources via tsx. */
function entry(): string[] {
  const built = ['cli/worker-command', 'cli/redis-state', 'stores/redis/queue'].every((f) => {
    try {
      return (
        statSync(join(ROOT, 'dist/src', `${f}.js`)).mtimeMs >= statSync(join(ROOT, 'src', `${f}.ts`)).mtimeMs
      );
    } catch {
      return false;
    }
  });
  return built ? [join(ROOT, 'dist/src/cli/main.js')] : ['--import', 'tsx', MAIN];
}

function worker(args: string[], env: Record<string, string>): Cli {
  return runCommand(process.execPath, [...entry(), 'worker', ...args], env);
}

function ready(cli: Cli): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = READY.exec(cli.stdout());
      if (m) resolve(m);
    };
    cli.child.stdout!.on('data', check);
    cli.exited.then((code) => reject(new Error(`exited with ${code} before ready:\n${cli.stderr()}`)));
  });
}

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});

afterAll(async () => {
  if (!REDIS_URL) return;
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
});

describe('mcplite worker', () => {
  it('refuses to start without MCPLITE_SECRET, with one clear line and exit code 2', async () => {
    const cli = worker(['--demo', '--redis', REDIS_URL ?? 'redis://127.0.0.1:1'], { MCPLITE_SECRET: '' });
    expect(await cli.exited).toBe(2);
    expect(cli.stdout()).toBe('');
    const lines = cli.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^mcplite: .*MCPLITE_SECRET/);
  });

  it.skipIf(!REDIS_URL)(
    'prints the ready line, runs the jobs fronts queue, and exits 0 on SIGTERM',
    async () => {
      const cli = worker(
        [
          '--demo',
          '--redis',
          REDIS_URL!,
          '--redis-prefix',
          `${PREFIX}:`,
          '--concurrency',
          '3',
          '--log-level',
          'warn',
        ],
        { MCPLITE_SECRET: 'shared-by-every-replica' },
      );
      const m = await ready(cli);
      expect(m[1]).toBe('mcplite-work');
      expect(m[2]).toBe('3');
      // A front (as `serve --redis --no-worker` makes it) queues a call of the demo's echo; the worker runs it.
      const store = new RedisPromiseStore({ url: REDIS_URL!, prefix: `${PREFIX}:` });
      const front = new BullMqWorkQueue({ url: REDIS_URL!, prefix: PREFIX, work: false });
      try {
        front.bind(() => Promise.reject(new Error('a front ran a job')), store);
        const now = Date.now();
        const token = newPromiseToken();
        await store.create(
          {
            token,
            tool: 'echo',
            status: 'pending',
            owner: 'anonymous',
            createdAt: now,
            expiresAt: now + 60_000,
            estimatedCompletion: now,
          },
          { maxPerOwner: 10 },
        );
        await front.submit({
          token,
          tool: 'echo',
          arguments: { message: 'hi', repeat: 2 },
          expiresAt: now + 60_000,
        });
        const record = await store.waitSettled(token, 10_000);
        expect(record?.status).toBe('settled');
        expect(record?.settlement).toMatchObject({ outcome: { type: 'answer' } });
      } finally {
        await front.close();
        await store.close();
      }
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
    },
    30_000,
  );
});
