/**
 * `mcplite serve` serves what a module exports, auth and middleware included: a module whose default export is
 * `createServer({ tools, authenticate: bearerAuth([...]), middleware: [visibleTools(...)] })` is served with its
 * token required and its hidden tool hidden, and the start line says what protects it. A flag that would reshape
 * such a server is a clear error, as are tokens on the command line for a module that authenticates by itself.
 * The CLI runs as a child process; the calls go through the mcplite client over MCP.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { children, logLine, ROOT, run, start } from '../support/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'mcplite-module-server-'));
// ESM, as the CLI's own copy of mcplite is: a CommonJS module would load a second copy of it, whose errors the
// CLI's copy does not know.
writeFileSync(
  join(dir, 'package.json'),
  JSON.stringify({ name: 'from-package', version: '1.0.0', type: 'module' }),
);
const INDEX = pathToFileURL(join(ROOT, 'src/index.ts')).href;
const TOOLS = `
export const tools = [
  { name: 'open', description: 'for all', handler: () => 'open' },
  { name: 'secret', description: 'hidden', handler: () => 'secret' },
];`;

function module(file: string, body: string): string {
  const path = join(dir, file);
  writeFileSync(
    path,
    `import { createServer, bearerAuth, visibleTools } from '${INDEX}';\n${TOOLS}\n${body}\n`,
  );
  return path;
}

const SERVER = module(
  'server.ts',
  `export default createServer({
  name: 'desk',
  tools,
  authenticate: bearerAuth(['t0k3n']),
  middleware: [visibleTools((tool) => tool.name !== 'secret')],
});`,
);
const OPTIONS = module(
  'options.ts',
  `export default { tools, authenticate: bearerAuth(['t0k3n']), middleware: [visibleTools((tool) => tool.name !== 'secret')] };`,
);

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mcplite serve and what the module exports', { timeout: 90_000 }, () => {
  it.each([
    ['a server', SERVER],
    ['options', OPTIONS],
  ])('serves %s with its own auth and middleware, and says so', async (_kind, path) => {
    const cli = await start([path, '--grpc-port', 'off']);
    const listening = await logLine(cli, (e) => e.msg === 'listening');
    expect(listening).toMatchObject({ auth: true, protectedBy: 'the module', middleware: true });
    // The server's own name (createServer({ name })), not the nearest package.json's.
    if (path === SERVER) expect(listening.server).toBe('desk');
    const mcp = cli.base.replace(/\/mcp-lite\/v1\/$/, '/mcp');
    const anonymous = await fetch(mcp, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(anonymous.status).toBe(401);
    await anonymous.body?.cancel();
    const client = await connect(mcp, { headers: { authorization: 'Bearer t0k3n' } });
    expect((await client.listTools()).map((t) => t.name)).toEqual(['open']);
    expect(await client.call('open')).toMatchObject({ type: 'answer', value: 'open' });
    await client.close();
  });

  it('a flag that would reshape an exported server is an error naming it', async () => {
    const cli = run(['serve', SERVER, '--port', '0', '--rate-limit', '5']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(/exports a server.*--rate-limit cannot change it/);
  });

  it('tokens on the command line for a module with its own authentication are an error', async () => {
    const cli = run(['serve', OPTIONS, '--port', '0', '--token', 'other']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(/sets its own authentication.*--token/);
  });
});
