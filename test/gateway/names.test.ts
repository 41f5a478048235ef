/**
 * What the gateway serves under its names: two servers whose namespaces could serve one name (`a` + `_x` and
 * `a_` + `x` are both `a__x`) stop `mcplite proxy --config` at start, naming both, rather than one silently
 * winning; an upstream's control characters (ESC, BEL) in titles and descriptions are shown, never re-served raw,
 * and a name holding one is refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { logLine, ROOT, run } from '../support/cli-process.js';
import { type InProcessGateway, startGateway } from '../support/gateway-in-process.js';

const HOSTILE = join(ROOT, 'test/support/hostile-stdio-server.mjs');
const stdio = (...args: string[]) => ({
  command: process.execPath,
  args: [HOSTILE, '--tools', '0', ...args],
});

describe('gateway names', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcplite-gateway-names-'));
  let gw: InProcessGateway | undefined;

  afterAll(async () => {
    await gw?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('servers whose namespaces overlap stop the gateway at start, both named', async () => {
    const file = join(dir, 'overlap.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { a: stdio(), a_: stdio() } }));
    const proxy = run(['proxy', '--config', file, '--port', '0', '--grpc-port', 'off']);
    const outcome = await Promise.race([
      proxy.exited.then((code) => ({ code })),
      logLine(proxy, (e) => e.msg === 'proxy listening').then(() => ({ code: 'listening' as const })),
    ]);
    if (proxy.child.exitCode === null) proxy.child.kill('SIGKILL');
    expect(outcome.code).toBe(2);
    expect(proxy.stderr()).toContain('servers "a" and "a_" can serve the same name');
  });

  it("an upstream's control characters are escaped in what the gateway serves; a name with one is refused", async () => {
    gw = await startGateway({ mcpServers: { evil: stdio('--control') } });
    const tools = await gw.client.listTools();
    const bell = tools.find((t) => t.name === 'evil_bell');
    expect(bell?.description).toBe('Red \\x1b[31mtext\\x1b[0m and a bell\\x07\nsecond line');
    expect(bell?.title).toBe('Bell\\x07 \\x1b]0;owned\\x07');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
    expect(JSON.stringify(tools)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(tools.map((t) => t.name)).toContain('evil_ok');
    expect(tools.map((t) => t.name).some((n) => n.includes('esc'))).toBe(false);
    const refused = gw.logs.find(
      (l) => l.msg === 'upstream tool refused' && String(l.fields.tool).includes('esc'),
    );
    expect(refused).toBeDefined();
  });
});
