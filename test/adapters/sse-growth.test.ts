/**
 * A long SSE stream must not grow the server's heap per event (issue 9: ~358-421 bytes per event for the life of
 * the stream, from a Promise.race against a promise that stayed pending). Measured in a child process with the
 * gc exposed (test/support/sse-growth.ts): a real socket, a real fetch client, tens of thousands of events.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('SSE stream memory', () => {
  it('stays flat over 40,000 events of one stream', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'test/support/sse-growth.ts', '40000'],
      { cwd: ROOT, timeout: 60_000 },
    );
    const figures = JSON.parse(stdout.trim()) as { events: number; bytesPerEvent: number };
    expect(figures.events).toBe(40_000);
    // The leak was hundreds of bytes per event; what is left is gc noise spread over the stream.
    expect(figures.bytesPerEvent).toBeLessThan(64);
  }, 90_000);
});
