/**
 * The `mcplite` CLI as a user runs it: a child process (from source, through tsx), its stdout listening line,
 * HTTP calls with fetch, signals, and exit codes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { children, LISTENING, logLine, run, start } from '../support/cli-process.js';
import { makeClient, unary } from '../support/grpc-client.js';
import { callMessage, post, readSse, rpc, type SseEvent } from '../support/mcp-lite-http.js';

let dir: string;

/** Writes a module into the test's temporary folder and returns its path. */
function moduleFile(name: string, source: string): string {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcplite-cli-'));
});

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

// A cold start through tsx takes seconds on a busy machine: these tests start real processes.
describe('mcplite serve --demo', { timeout: 45_000 }, () => {
  it('prints the listening line, serves the demo tools and logs JSON to stderr', async () => {
    const cli = await start(['--demo']);
    expect(cli.stdout()).toMatch(LISTENING);
    const body = await rpc(
      `${cli.base}calltools`,
      callMessage(1, 'search_documents', { query: 'MCP specification' }),
    );
    expect(body.result!._meta.response_type).toBe('answer');
    expect(body.result!._meta.server_version).toBe('1.0.0');
    expect(body.result!.content[0].title).toMatch(/MCP/);
    const listening = await logLine(cli, (e) => e.msg === 'listening');
    expect(listening).toMatchObject({ level: 30, name: 'mcplite', url: cli.base, auth: false });
    expect(listening.tools).toEqual(expect.arrayContaining(['search_documents', 'redeem']));
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('serves the documents webtool and limits each caller with --rate-limit', async () => {
    const cli = await start(['--demo', '--webtools', '--rate-limit', '2']);
    await waitFor(() => /mcplite Webtools documents on (\S+)/.test(cli.stdout()));
    const url = /mcplite Webtools documents on (\S+)/.exec(cli.stdout())![1]!;
    const meta = (await (await fetch(url)).json()) as { versions: string[] };
    expect(meta.versions).toEqual(['1.0.0', '1.1.0']);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'get_document', request: { document_id: 'doc_001' } }),
      });
      statuses.push(res.status);
    }
    // A burst of 2 refilled at 2 per second: the third call within the same moment may or may not find a token.
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    const burst = await Promise.all(
      Array.from({ length: 10 }, () =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ action: 'get_document', request: { document_id: 'doc_001' } }),
        }).then((r) => r.status),
      ),
    );
    expect(burst).toContain(429);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('serves MCP-lite HTTP, full MCP and gRPC at once, and announces each', async () => {
    const cli = await start(['--demo']);
    await waitFor(() => /mcplite gRPC \(mcplite\.MCPLite\) on (\S+)/.test(cli.stdout()));
    const grpcAddress = /mcplite gRPC \(mcplite\.MCPLite\) on (\S+)/.exec(cli.stdout())![1]!;
    const mcpUrl = /mcplite MCP \(Streamable HTTP\) on (\S+)/.exec(cli.stdout())![1]!;
    const client = makeClient(grpcAddress);
    const listed = await unary(client, 'GetTools', {});
    client.close();
    expect(listed.response.tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['redeem', 'search_documents']),
    );
    const mcp = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(mcp.status).toBe(200);
    expect(await mcp.text()).toContain('"protocolVersion":"2025-06-18"');
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('on SIGTERM lets an in-flight streaming call finish, then exits 0', async () => {
    const cli = await start(['--demo', '--grace', '10000']);
    const res = await post(
      `${cli.base}rpc`,
      callMessage('s', 'generate_report', { topic: 'quarterly results' }),
      {
        accept: 'text/event-stream',
      },
    );
    let signalled = false;
    const events = await readSse(res, (e: SseEvent) => {
      // The first partial proves the call is running; the rest of the report is still to come.
      if (e.event === 'message' && !signalled) {
        signalled = true;
        cli.child.kill('SIGTERM');
      }
    });
    expect(signalled).toBe(true);
    const messages = events.filter((e) => e.event === 'message');
    expect(messages.length).toBeGreaterThan(3);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { _meta: { response_type: 'answer' } } });
    expect(await cli.exited).toBe(0);
    const shutdown = await logLine(cli, (e) => e.msg === 'shutting down');
    expect(shutdown).toMatchObject({ signal: 'SIGTERM', inFlight: 1 });
  });
});

describe('mcplite serve <module>', { timeout: 45_000 }, () => {
  it('serves the tools a .mjs module exports, with its serverOptions, and drains a slow call on SIGTERM', async () => {
    const path = moduleFile(
      'tools.mjs',
      `
      export const serverOptions = { name: 'custom', version: '9.9.9' };
      export const add = {
        name: 'add',
        description: 'Adds two numbers',
        inputSchema: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'number' }, b: { type: 'number' } } },
        handler: ({ a, b }) => a + b,
      };
      export const slow = {
        name: 'slow',
        handler: async (_args, ctx) => {
          ctx.log.info({ step: 'started' }, 'slow call started');
          await new Promise((r) => setTimeout(r, 700));
          return 'finished';
        },
      };
      export const notATool = { name: 'x' };
      `,
    );
    const cli = await start([path, '--grace', '5000']);
    const list = (await (await post(`${cli.base}listtools`, {})).json()) as {
      tools: Array<{ name: string }>;
    };
    // No tool here can return a promise: no redeem or cancel (issue 22, item 10).
    expect(list.tools.map((t) => t.name).sort()).toEqual(['add', 'slow']);
    const sum = await rpc(`${cli.base}calltools`, callMessage(1, 'add', { a: 2, b: 40 }));
    expect(sum.result).toMatchObject({
      content: 42,
      _meta: { response_type: 'answer', server_version: '9.9.9' },
    });

    const pending = rpc(`${cli.base}calltools`, callMessage(2, 'slow', {}));
    await logLine(cli, (e) => e.step === 'started');
    cli.child.kill('SIGTERM');
    const slow = await pending;
    expect(slow.result).toMatchObject({ content: 'finished', _meta: { response_type: 'answer' } });
    expect(await cli.exited).toBe(0);
    // Once stopped, nothing listens any more.
    await expect(post(`${cli.base}listtools`, {})).rejects.toThrow();
  });

  it('takes a default export { tools, ...serverOptions }', async () => {
    const path = moduleFile(
      'default.mjs',
      `export default { name: 'by-default', version: '2.0.0', tools: [{ name: 'ping', handler: () => 'pong' }] };`,
    );
    const cli = await start([path]);
    const body = await rpc(`${cli.base}calltools`, callMessage(1, 'ping', {}));
    expect(body.result).toMatchObject({ content: 'pong', _meta: { server_version: '2.0.0' } });
  });

  it('loads a TypeScript module through tsx', async () => {
    const path = moduleFile(
      'typed.ts',
      `
      interface Args { name: string }
      export const tools = [{ name: 'greet', handler: ({ name }: Args): string => \`hello \${name}\` }];
      `,
    );
    const cli = await start([path]);
    const body = await rpc(`${cli.base}calltools`, callMessage(1, 'greet', { name: 'ada' }));
    expect(body.result!.content).toBe('hello ada');
  });

  it('requires a bearer token from MCPLITE_TOKENS and never logs it', async () => {
    const cli = await start(['--demo'], { MCPLITE_TOKENS: 's3cret-one, s3cret-two' });
    const anonymous = await post(`${cli.base}listtools`, {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const wrong = await post(`${cli.base}listtools`, {}, { authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    const ok = await post(`${cli.base}listtools`, {}, { authorization: 'Bearer s3cret-two' });
    expect(ok.status).toBe(200);
    await logLine(cli, (e) => e.msg === 'listening' && e.auth === true);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.stderr()).not.toContain('s3cret');
    expect(cli.stdout()).not.toContain('s3cret');
  });
});

describe('mcplite serve errors', () => {
  it('a module without tools exits 2 with a clear message', async () => {
    const path = moduleFile('empty.mjs', 'export const answer = 42;\nexport default { hello: "world" };\n');
    const cli = run(['serve', path, '--port', '0', '--grpc-port', 'off']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain(`mcplite: No tools found in ${path}`);
    expect(cli.stderr()).toContain('export a "tools" array');
    expect(cli.stdout()).toBe('');
  });

  it('a module that does not exist exits 2', async () => {
    const cli = run(['serve', join(dir, 'missing.mjs')]);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain('Module not found');
  });

  it('invalid tool definitions exit 2 naming the problem', async () => {
    const path = moduleFile('bad.mjs', 'export const tools = [{ name: "has space", handler: () => 1 }];\n');
    const cli = run(['serve', path, '--port', '0']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain('Invalid tool name');
  });

  it('nothing to serve, or a bad flag, is a usage error (exit 2)', async () => {
    const nothing = run(['serve']);
    expect(await nothing.exited).toBe(2);
    expect(nothing.stderr()).toContain('Nothing to serve');
    const badPort = run(['serve', '--demo', '--port', 'eighty']);
    expect(await badPort.exited).toBe(2);
    expect(badPort.stderr()).toContain('--port');
  });
});

/** Polls `ready` until it holds (for output that arrives in more than one chunk). */
async function waitFor(ready: () => boolean, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
