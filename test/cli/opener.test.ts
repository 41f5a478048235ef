/**
 * The CLI opens only https URLs (or http on loopback) in a browser, whatever a server names. A server whose
 * authorization server gives a file: or javascript: sign-in URL gets `mcplite login` refused, and the system opener
 * never sees the URL. The opener is a real program: a fake `xdg-open` first on PATH that writes down what it was
 * given (with DISPLAY set, as on a desktop), so the test sees exactly what the CLI would have opened.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { children, outputMatch, run } from '../support/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'mcplite-opener-'));
const bin = join(dir, 'bin');
const opened = join(dir, 'opened.log');
mkdirSync(bin);
writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${opened}'\n`);
chmodSync(join(bin, 'xdg-open'), 0o755);

const servers: Server[] = [];
afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const server of servers.splice(0)) server.close();
  rmSync(opened, { force: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A protected MCP server that is its own authorization server, whose metadata names `authorize(origin)` as the
 * authorization endpoint (and registers any client). Answers its /mcp URL.
 */
async function protectedServer(authorize: (origin: string) => string): Promise<string> {
  let origin = '';
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', origin).pathname;
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    if (path.startsWith('/.well-known/oauth-protected-resource'))
      return json(200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
    if (path.startsWith('/.well-known/oauth-authorization-server') || path.startsWith('/.well-known/openid'))
      return json(200, {
        issuer: origin,
        authorization_endpoint: authorize(origin),
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
      });
    if (path === '/register') {
      let body = '';
      req.setEncoding('utf8').on('data', (c: string) => {
        body += c;
      });
      req.on('end', () => json(201, { ...JSON.parse(body), client_id: 'opener-test' }));
      return;
    }
    json(
      401,
      { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Unauthorized' } },
      {
        'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
      },
    );
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return `${origin}/mcp`;
}

/** `mcplite login <url>` on a desktop whose opener is the fake one. */
function login(url: string) {
  return run(['login', url, '--timeout', '60000'], {
    PATH: `${bin}${delimiter}${process.env.PATH}`,
    DISPLAY: ':99',
    XDG_CONFIG_HOME: mkdtempSync(join(dir, 'config-')),
  });
}

describe('the CLI and the system opener', { timeout: 90_000 }, () => {
  it('opens an https sign-in URL with the system opener (the fake opener sees it)', async () => {
    const url = await protectedServer(() => 'https://as.example/authorize');
    const cli = login(url);
    await expect.poll(() => existsSync(opened), { timeout: 60_000 }).toBe(true);
    await expect
      .poll(() => readFileSync(opened, 'utf8'), { timeout: 10_000 })
      .toMatch(/^https:\/\/as\.example\/authorize\?.*code_challenge_method=S256/);
    cli.child.kill('SIGKILL');
  });

  it.each(['file:///etc/passwd', 'http://as.example/authorize'])(
    'refuses to open a sign-in URL of %s and says why',
    async (endpoint) => {
      const url = await protectedServer(() => endpoint);
      const cli = login(url);
      expect(await cli.exited).not.toBe(0);
      await outputMatch(cli.stderr, /Not opening .*only https URLs \(or http on loopback\) are opened/);
      expect(existsSync(opened)).toBe(false);
    },
  );

  // The OAuth client refuses this one while reading the metadata already: the opener is never reached either.
  it('never opens a javascript: sign-in URL', async () => {
    const url = await protectedServer(() => 'javascript:alert(1)//');
    const cli = login(url);
    expect(await cli.exited).not.toBe(0);
    expect(cli.stderr()).toContain('Sign-in to');
    expect(existsSync(opened)).toBe(false);
  });
});
