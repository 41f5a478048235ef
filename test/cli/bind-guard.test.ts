/**
 * Every listener the CLI starts keeps its DNS-rebinding guard whatever address it binds: `mcplite dev` and
 * `mcplite serve` on 0.0.0.0 refuse a request whose Host and Origin name a stranger's site (a rebinding page), let
 * in loopback and the names given with `--allowed-hosts`, and warn that the bind is beyond loopback. The CLI runs
 * as a child process; the requests are real HTTP requests with the headers a browser would send.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Cli, children, outputMatch, run } from '../support/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'mcplite-bind-guard-'));
const MODULE = join(dir, 'tools.mjs');
writeFileSync(MODULE, "export const tools = [{ name: 'ping', handler: () => 'pong' }];\n");

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A tools/call to /mcp on 127.0.0.1:`port` with the given Host (and Origin); answers the HTTP status and body. */
function callPing(port: number, host: string, origin?: string): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'ping', arguments: {} },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          host: `${host}:${port}`,
          ...(origin ? { origin } : {}),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function portOf(cli: Cli): Promise<number> {
  const [, port] = await outputMatch(cli.stdout, /on http:\/\/0\.0\.0\.0:(\d+)\//, 60_000);
  return Number(port);
}

const ATTACKER = 'attacker.example';

describe('the CLI on a bind beyond loopback', { timeout: 90_000 }, () => {
  it.each([
    ['dev', ['dev', MODULE, '--no-open']],
    ['serve', ['serve', MODULE, '--grpc-port', 'off']],
  ])('%s --host 0.0.0.0 keeps the Host/Origin guard and warns', async (_name, args) => {
    const cli = run([...args, '--host', '0.0.0.0', '--port', '0']);
    const port = await portOf(cli);
    const refused = await callPing(port, ATTACKER, `http://${ATTACKER}`);
    expect(refused.status).toBe(403);
    expect(refused.body).not.toContain('pong');
    expect((await callPing(port, ATTACKER)).status).toBe(403);
    const loopback = await callPing(port, '127.0.0.1');
    expect(loopback.status).toBe(200);
    expect(loopback.body).toContain('pong');
    await outputMatch(cli.stderr, /warning: listening on 0\.0\.0\.0, beyond loopback.*--allowed-hosts/);
  });

  it('lets in the names given with --allowed-hosts (and MCPLITE_ALLOWED_HOSTS), on dev and serve alike', async () => {
    const dev = run(
      [
        'dev',
        MODULE,
        '--no-open',
        '--host',
        '0.0.0.0',
        '--port',
        '0',
        '--allowed-hosts',
        `${ATTACKER},b.example`,
      ],
      {},
    );
    const serve = run(['serve', MODULE, '--grpc-port', 'off', '--host', '0.0.0.0', '--port', '0'], {
      MCPLITE_ALLOWED_HOSTS: 'mcp.internal',
    });
    const [devPort, servePort] = await Promise.all([portOf(dev), portOf(serve)]);
    const allowed = await callPing(devPort, ATTACKER, `http://${ATTACKER}`);
    expect(allowed.status).toBe(200);
    expect(allowed.body).toContain('pong');
    expect((await callPing(devPort, 'c.example')).status).toBe(403);
    expect((await callPing(servePort, 'mcp.internal')).status).toBe(200);
    expect((await callPing(servePort, ATTACKER)).status).toBe(403);
  });
});
