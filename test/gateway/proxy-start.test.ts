/**
 * `mcplite proxy "<stdio upstream>"` whose tools listing is past the size bound cannot start: it exits naming the
 * cause (the listing's size), and announces no reconnection it will never make.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, run } from '../support/cli-process.js';

describe('mcplite proxy with an oversized listing', { timeout: 120_000 }, () => {
  it('exits naming the cause, announcing no retry', async () => {
    const upstream = `${process.execPath} ${join(ROOT, 'test/support/hostile-stdio-server.mjs')} --tools 5000`;
    const proxy = run([
      'proxy',
      upstream,
      '--port',
      '0',
      '--grpc-port',
      'off',
      '--max-response-bytes',
      '100000',
    ]);
    const code = await proxy.exited;
    expect(code).toBe(1);
    const stderr = proxy.stderr();
    expect(stderr).toMatch(/cannot list the tools of .*: .*100000 bytes/);
    expect(stderr).not.toMatch(/next attempt|reconnecting|retryInMs/);
  });
});
