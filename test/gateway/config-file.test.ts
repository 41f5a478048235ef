/**
 * Issue 28: the gateway's config file (`{"mcpServers": {...}}`), read by `parseGatewayConfig` and by the CLI: the
 * entry kinds, credentials from the environment (named when missing, never printed), every malformed shape refused
 * as `config_invalid` naming the entry and field; a stdio command line that keeps its words; and a gateway whose
 * only server is down at start, which starts anyway and serves the server's tools once it answers.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` is the config format's own syntax here.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandLine } from '../../src/client/detect.js';
import { connect, McpLiteError, splitCommand } from '../../src/client/index.js';
import { parseGatewayConfig } from '../../src/gateway/config.js';
import { logLine, ROOT, run } from '../support/cli-process.js';
import { freePort } from '../support/free-port.js';

const dir = mkdtempSync(join(tmpdir(), 'mcplite-gateway-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refusal(text: string, env: NodeJS.ProcessEnv = {}): McpLiteError {
  try {
    parseGatewayConfig(text, env);
  } catch (err) {
    expect(err).toBeInstanceOf(McpLiteError);
    expect((err as McpLiteError).code).toBe('config_invalid');
    return err as McpLiteError;
  }
  throw new Error('accepted');
}

describe('parseGatewayConfig', () => {
  it('reads "oauth": true or its settings, the secret from the environment, refusing what cannot sign in', () => {
    const [plain, machine] = parseGatewayConfig(
      JSON.stringify({
        mcpServers: {
          crm: { url: 'https://crm.example.com/mcp', oauth: true },
          billing: {
            target: 'https://billing.example.com/mcp',
            oauth: {
              clientId: 'gw',
              scope: 'invoices:read',
              clientSecretEnv: 'BILLING_SECRET',
              issuer: 'https://login.example.com',
            },
          },
        },
      }),
      { BILLING_SECRET: 's3cret-value' },
    );
    expect(plain).toMatchObject({ kind: 'remote', oauth: {} });
    expect(machine).toMatchObject({
      kind: 'target',
      oauth: {
        clientId: 'gw',
        scope: 'invoices:read',
        clientSecret: 's3cret-value',
        issuer: ['https://login.example.com'],
        grant: 'client_credentials',
      },
    });
    // A secret goes only to the authorization server named with it: none named, no start.
    const noIssuer = refusal(
      JSON.stringify({
        mcpServers: { b: { url: 'https://x/mcp', oauth: { clientId: 'gw', clientSecretEnv: 'S' } } },
      }),
      { S: 'never-shown' },
    );
    expect(noIssuer.message).toMatch(/"clientSecretEnv" needs "issuer"/);
    expect(noIssuer.message).not.toContain('never-shown');
    expect(
      refusal(
        JSON.stringify({
          mcpServers: {
            b: { url: 'https://x/mcp', oauth: { clientId: 'gw', clientSecretEnv: 'S', issuer: ['ftp://x'] } },
          },
        }),
        { S: 'x' },
      ).message,
    ).toMatch(/issuer must be an http\(s\) URL/);
    const missing = refusal(
      JSON.stringify({
        mcpServers: { b: { url: 'https://x/mcp', oauth: { clientId: 'gw', clientSecretEnv: 'NOPE' } } },
      }),
    );
    expect(missing.message).toContain('NOPE');
    const noClient = refusal(
      JSON.stringify({ mcpServers: { b: { url: 'https://x/mcp', oauth: { clientSecretEnv: 'S' } } } }),
      { S: 'never-shown' },
    );
    expect(noClient.message).toMatch(/clientId/);
    expect(noClient.message).not.toContain('never-shown');
    expect(
      refusal(JSON.stringify({ mcpServers: { b: { url: 'https://x/mcp', oauth: { secret: 'x' } } } }))
        .message,
    ).toMatch(/unknown field "secret"/);
    expect(
      refusal(JSON.stringify({ mcpServers: { b: { url: 'https://x/mcp', oauth: 'yes' } } })).message,
    ).toMatch(/true or an object/);
  });

  it('reads every entry kind, expands ${VAR} and the credential shortcuts, skips disabled entries', () => {
    const entries = parseGatewayConfig(
      JSON.stringify({
        mcpServers: {
          files: { command: 'npx', args: ['-y', 'srv', '${ROOT_DIR}'], env: { A: '1' }, cwd: 'sub' },
          gh: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${GH}' } },
          search: { target: 'grpc://127.0.0.1:50051', timeout: 500, maxInFlight: 3 },
          billing: {
            openapi: './b.yaml',
            baseUrl: 'https://api.example.com/v2',
            bearerTokenEnv: 'BILL',
            apiKeyEnv: 'KEY',
            apiKeyHeader: 'X-Key',
            include: ['invoices'],
            tools: { rename: { listInvoices: 'invoices' } },
          },
          off: { command: 'x', disabled: true },
        },
      }),
      { ROOT_DIR: '/srv', GH: 'ghp_1', BILL: 'b-1', KEY: 'k-1' },
    );
    expect(entries).toEqual([
      {
        name: 'files',
        kind: 'stdio',
        command: 'npx',
        args: ['-y', 'srv', '/srv'],
        env: { A: '1' },
        cwd: 'sub',
        tools: {},
      },
      {
        name: 'gh',
        kind: 'remote',
        url: 'https://example.com/mcp',
        headers: { Authorization: 'Bearer ghp_1' },
        tools: {},
      },
      {
        name: 'search',
        kind: 'target',
        target: 'grpc://127.0.0.1:50051',
        headers: {},
        timeout: 500,
        maxInFlight: 3,
        tools: {},
      },
      {
        name: 'billing',
        kind: 'openapi',
        openapi: './b.yaml',
        baseUrl: 'https://api.example.com/v2',
        headers: { Authorization: 'Bearer b-1', 'X-Key': 'k-1' },
        include: ['invoices'],
        tools: { rename: { listInvoices: 'invoices' } },
      },
    ]);
  });

  it('names a missing variable, never a value', () => {
    const e = refusal(
      JSON.stringify({
        mcpServers: {
          a: { url: 'https://x.example/mcp', headers: { 'X-A': '${PRESENT}', 'X-B': '${ABSENT}' } },
        },
      }),
      { PRESENT: 'sekret-value' },
    );
    expect(e.message).toContain('the environment has no ABSENT');
    expect(e.message).toContain('server "a"');
    expect(e.message).not.toContain('sekret-value');
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['no mcpServers', '{"servers": {}}', /expected \{"mcpServers"/],
    ['no servers', '{"mcpServers": {}}', /no servers/],
    ['an entry that is not an object', '{"mcpServers": {"a": 1}}', /server "a" must be an object/],
    ['two kinds', '{"mcpServers": {"a": {"command": "x", "url": "http://y"}}}', /exactly one of/],
    ['no kind', '{"mcpServers": {"a": {"args": []}}}', /exactly one of/],
    ['a bad name', '{"mcpServers": {"a b": {"command": "x"}}}', /server name "a b"/],
    ['args not strings', '{"mcpServers": {"a": {"command": "x", "args": [1]}}}', /"args" must be an array/],
    [
      'a url not http',
      '{"mcpServers": {"a": {"url": "file:///etc/passwd"}}}',
      /"url" must be an http\(s\) URL/,
    ],
    ['a bad bound', '{"mcpServers": {"a": {"command": "x", "timeout": -1}}}', /"timeout" must be a positive/],
    [
      'an unknown transform',
      '{"mcpServers": {"a": {"command": "x", "tools": {"drop": []}}}}',
      /unknown field "drop"/,
    ],
    [
      'a rename not strings',
      '{"mcpServers": {"a": {"command": "x", "tools": {"rename": {"x": 1}}}}}',
      /"x" must be a string/,
    ],
  ])('refuses %s', (_what, text, message) => {
    expect(refusal(text).message).toMatch(message);
  });
});

describe('a stdio entry as a command line', () => {
  it('keeps every word: spaces, quotes, dollars, backslashes', () => {
    const words = ['/usr/bin/my server', "it's", 'say "hi"', '$HOME', 'a\\b', ''];
    expect(splitCommand(commandLine(words[0]!, words.slice(1)))).toEqual(words);
  });
});

describe('mcplite proxy --config (the CLI)', { timeout: 90_000 }, () => {
  it('refuses a bad file with one line, exit 2, no stack', async () => {
    writeFileSync(join(dir, 'bad.json'), '{"mcpServers": {"a": {"command": "x", "url": "http://y"}}}');
    const cli = run(['proxy', '--config', join(dir, 'bad.json'), '--port', '0', '--grpc-port', 'off']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain('Invalid gateway config: server "a" needs exactly one of');
    expect(cli.stderr()).not.toMatch(/\n\s+at /);
    const neither = run(['proxy', '--port', '0']);
    expect(await neither.exited).toBe(2);
    expect(neither.stderr()).toContain('give one upstream <target> or --config <file>');
  });

  it('never shows a credential of a server it cannot reach: not in the log, not on /readyz', async () => {
    const config = join(dir, 'secret.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { dead: { url: `http://127.0.0.1:${await freePort()}/mcp?token=\${TOK}` } },
      }),
    );
    const cli = run(['proxy', '--config', config, '--port', '0', '--grpc-port', 'off'], {
      TOK: 'sekret-tok-1',
    });
    try {
      const line = await logLine(cli, (e) => e.msg === 'proxy listening');
      await logLine(cli, (e) => e.msg === 'upstream tools not listed');
      const readyz = await fetch(new URL('/readyz', String(line.url)));
      expect(readyz.status).toBe(503);
      const body = await readyz.text();
      expect(body).toContain('dead (http://127.0.0.1:');
      expect(body).not.toContain('sekret-tok-1');
      expect(cli.stderr()).toContain('Cannot reach dead (http://127.0.0.1:');
      expect(cli.stderr()).not.toContain('sekret-tok-1');
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  });

  it('starts although its only server is down, and serves it once it answers', async () => {
    const pidFile = join(dir, 'pids');
    const downFile = join(dir, 'down');
    writeFileSync(downFile, '');
    const config = join(dir, 'late.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          late: {
            command: process.execPath,
            args: [
              '--import',
              'tsx',
              join(ROOT, 'test/support/gateway-stdio-upstream.ts'),
              '--pid-file',
              pidFile,
              '--down-file',
              downFile,
            ],
          },
        },
      }),
    );
    const cli = run(['proxy', '--config', config, '--port', '0', '--grpc-port', 'off']);
    try {
      const line = await logLine(cli, (e) => e.msg === 'proxy listening');
      expect(line.servers).toEqual({ late: [] });
      const base = String(line.url);
      const readyz = await fetch(new URL('/readyz', base));
      expect(readyz.status).toBe(503);
      expect(((await readyz.json()) as { reason: string }).reason).toMatch(
        /^every upstream is down: late \(/,
      );
      expect(cli.stderr()).toContain('upstream tools not listed');
      rmSync(downFile);
      const client = await connect(base);
      try {
        await expect
          .poll(async () => (await client.listTools()).map((t) => t.name), { timeout: 40_000, interval: 200 })
          .toContain('late_echo');
        expect(await client.call('late_echo', { message: 'late' })).toMatchObject({
          type: 'answer',
          value: 'late',
        });
        expect((await fetch(new URL('/readyz', base))).status).toBe(200);
      } finally {
        await client.close();
      }
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
      if (existsSync(pidFile))
        for (const pid of readFileSync(pidFile, 'utf8').trim().split('\n').filter(Boolean)) {
          try {
            process.kill(Number(pid), 'SIGKILL');
          } catch {
            // Gone.
          }
        }
    }
  });
});
