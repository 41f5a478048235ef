/**
 * Issue 22 item 16: `client.call({ timeout })` must fire while full GCs run. The call runs in a child process
 * started with `--expose-gc` that forces a GC every 20 ms, against a server that never answers; the timer
 * behind the deadline was held only weakly (`AbortSignal.timeout` under `AbortSignal.any`), so a GC took it and
 * the call waited for ever.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../support/client-gc-call.ts', import.meta.url));
let server: Server;
let base: string;

beforeAll(async () => {
  // Reads every request and never answers.
  server = createServer((req) => req.resume());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function callUnderGc(target: string, binding: string, timeout: number) {
  return new Promise<{ code: string; elapsed: number }>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', SCRIPT, target, binding, String(timeout)],
      { timeout: 15_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout.trim().split('\n').pop()!));
      },
    );
  });
}

describe('the call timeout under full GCs', () => {
  for (const [binding, path] of [
    ['mcp-lite-http', '/mcp-lite/v1/'],
    ['webtools', '/webtools/hang/'],
    ['mcp', '/mcp'],
  ] as const) {
    it(`fires on ${binding} while gc() runs every 20 ms`, async () => {
      const { code, elapsed } = await callUnderGc(`${base}${path}`, binding, 1_000);
      expect(code).toBe('deadline_exceeded');
      expect(elapsed).toBeGreaterThanOrEqual(900);
      // Generous for a loaded machine; before the fix the child was still waiting when killed at 15 s.
      expect(elapsed).toBeLessThan(6_000);
    }, 120_000);
  }
});
