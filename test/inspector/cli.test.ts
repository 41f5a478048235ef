/**
 * `mcplite inspect <target>` and `mcplite serve --inspector` as a user runs them: child processes from source
 * (through tsx), the URL line on stdout, the page and its API over HTTP, signals and exit codes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { type Cli, children, MAIN, run as runCli, runCommand } from '../support/cli-process.js';

// No token from the environment, and no display: the CLI must not try to open a browser here.
const ENV = { MCPLITE_TOKEN: '', DISPLAY: '', WAYLAND_DISPLAY: '' };

function run(args: string[]): Cli {
  // `sh -c …` runs a copied command line as it is; anything else is the CLI from source.
  return args[0] === 'sh' ? runCommand('sh', args.slice(1), ENV) : runCli(args, ENV);
}

async function lineMatching(cli: Cli, pattern: RegExp): Promise<RegExpExecArray> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const match = pattern.exec(cli.stdout());
    if (match) return match;
    if (Date.now() > deadline || cli.child.exitCode !== null) {
      throw new Error(`no line matching ${pattern}: stdout ${cli.stdout()} stderr ${cli.stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The printed URL's token, the page it leads to (the token exchanged for a cookie, the page served to that cookie
 * and to nothing else), and the tool names its API lists.
 */
async function visit(pageUrl: string): Promise<{ token: string; tools: string[]; binding: string }> {
  const token = new URL(pageUrl).searchParams.get('token')!;
  const bare = new URL('.', pageUrl).href;
  expect((await fetch(bare)).status).toBe(403);
  const login = await fetch(pageUrl, { redirect: 'manual' });
  expect(login.status).toBe(303);
  expect(login.headers.get('location')).toBe(new URL(bare).pathname);
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const page = await fetch(bare, { headers: { cookie } });
  expect(page.status).toBe(200);
  expect(await page.text()).not.toContain(token);
  const listed = await fetch(new URL('api/tools', pageUrl), { headers: { 'x-mcplite-inspector': token } });
  const body = (await listed.json()) as { tools: Array<{ name: string }>; binding: string };
  return { token, tools: body.tools.map((t) => t.name), binding: body.binding };
}

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

describe('mcplite inspect', () => {
  let demo: RunningServer;

  beforeAll(async () => {
    demo = await serve(createServer({ ...serverOptions, tools }), { port: 0 });
  });
  afterAll(async () => {
    await demo?.close(500);
  });

  it('serves the page for an MCP-lite HTTP target, prints its URL and exits 0 on SIGTERM', async () => {
    const target = `${demo.url}/mcp-lite/v1/`;
    const cli = run(['inspect', target, '--no-open']);
    const [, url] = await lineMatching(
      cli,
      /^mcplite inspector on (http:\/\/127\.0\.0\.1:\d+\/inspector\/\?token=[\w-]{22}) \(inspecting (.+)\)$/m,
    );
    const { tools: names, binding } = await visit(url!);
    expect(binding).toBe('mcp-lite-http');
    expect(names).toContain('generate_report');
    // The root points at the page.
    const root = await fetch(new URL('/', url), { redirect: 'manual' });
    expect(root.headers.get('location')).toBe('/inspector/');
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('refuses a target it cannot speak to with one line and exit code 2', async () => {
    const cli = run(['inspect', 'not a url', '--no-open']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr().trim().split('\n')).toHaveLength(1);
    expect(cli.stderr()).toMatch(/^mcplite: Cannot inspect "not a url"/);
  });
});

describe('mcplite serve --inspector', () => {
  it('mounts the inspector on the server itself, which it inspects through its own binding', async () => {
    const cli = run(['serve', '--demo', '--port', '0', '--grpc-port', 'off', '--inspector']);
    const [, url] = await lineMatching(
      cli,
      /^mcplite inspector on (http:\/\/127\.0\.0\.1:\d+\/inspector\/\?token=[\w-]{22})$/m,
    );
    const { token, tools: names } = await visit(url!);
    expect(names).toContain('subscribe_digest');
    const call = await fetch(new URL('api/call', url), {
      method: 'POST',
      headers: { 'x-mcplite-inspector': token, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'echo', arguments: { message: 'hi' }, stream: false }),
    });
    const text = await call.text();
    expect(text).toContain('"result":{"message":"hi","repeat":1}');
    // Copy-as snippets name the server's own MCP-lite HTTP URL.
    const snippets = await fetch(new URL('api/snippets', url), {
      method: 'POST',
      headers: { 'x-mcplite-inspector': token, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'echo', arguments: { message: 'hi' } }),
    });
    const { cli: line } = (await snippets.json()) as { cli: string };
    expect(line).toBe(`mcplite call ${new URL('/mcp-lite/v1/', url).href} echo --args '{"message":"hi"}'`);
    // The line works as copied (with this checkout's CLI standing in for an installed `mcplite`).
    const copied = run([
      'sh',
      '-c',
      line.replace(/^mcplite /, `"${process.execPath}" --import tsx "${MAIN}" `),
    ]);
    expect(await copied.exited).toBe(0);
    expect(copied.stdout()).toContain('hi');
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('is off by default', async () => {
    const cli = run(['serve', '--demo', '--port', '0', '--grpc-port', 'off']);
    const [, base] = await lineMatching(
      cli,
      /^mcplite listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp-lite\/v1\/$/m,
    );
    expect(cli.stdout()).not.toContain('inspector');
    expect((await fetch(`${base}/inspector/`)).status).toBe(404);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });
});
