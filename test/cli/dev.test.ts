/**
 * `mcplite dev <module>` (issue 26): a TypeScript tool module served without a build step, reloaded when a file
 * in its folder changes (the module and the helper it imports), the inspector printed, and a promise whose work
 * finished before the reload still redeemed after it. The CLI runs as a child process; the calls go through the
 * real mcplite client over MCP (Streamable HTTP) and MCP-lite HTTP.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { type Cli, children, run } from '../support/cli-process.js';

const folder = mkdtempSync(join(tmpdir(), 'mcplite-dev-'));

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The tool module: plain objects, typed with TypeScript syntax so that only a TypeScript loader runs it. */
function toolModule(extra: string): string {
  return `
import { greeting } from './helper.js';

interface Empty { [key: string]: never }
const schema = { type: 'object', properties: {} } as const;

export const tools = [
  { name: 'hello', description: 'Greets', inputSchema: schema, handler: (_: Empty): string => greeting() },
  {
    name: 'slow',
    description: 'Finishes after a moment',
    inputSchema: schema,
    longRunning: true,
    handler: async (): Promise<string> => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return 'slow work done';
    },
  },
  ${extra}
];
`;
}

/** Resolves with the first match of `pattern` in the CLI's stdout after `from` characters (within 60 s). */
function waitFor(cli: Cli, pattern: RegExp, from = 0): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} in:\n${cli.stdout()}\nstderr:\n${cli.stderr()}`)),
      60_000,
    );
    const check = () => {
      const m = pattern.exec(cli.stdout().slice(from));
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    check();
    cli.child.stdout!.on('data', check);
    cli.exited.then((code) => reject(new Error(`dev exited with ${code}:\n${cli.stderr()}`)));
  });
}

describe('mcplite dev', () => {
  // The module runs as ESM in a "type": "module" package and as CommonJS (through tsx) in one without: both reload.
  it.each(['module', 'commonjs'])(
    'reloads on change (%s), keeps finished promises redeemable, prints the inspector',
    async (type) => {
      const dir = mkdtempSync(join(folder, `${type}-`));
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: `dev-${type}`, version: '1.0.0', type }),
      );
      writeFileSync(join(dir, 'helper.ts'), "export const greeting = (): string => 'hello v1';\n");
      writeFileSync(join(dir, 'tools.ts'), toolModule(''));
      const cli = run(['dev', join(dir, 'tools.ts'), '--port', '0', '--no-open']);
      const [, url] = await waitFor(cli, /^mcplite dev: MCP on (http:\/\/127\.0\.0\.1:\d+)\/mcp /m);
      const [, inspector] = await waitFor(cli, /^mcplite inspector on (\S+)$/m);
      expect(inspector).toMatch(new RegExp(`^${url}/inspector/`));
      // The printed URL trades its token for the inspector's cookie, with which the page loads.
      const entry = await fetch(inspector!, { redirect: 'manual' });
      expect(entry.status).toBe(303);
      const cookie = entry.headers.get('set-cookie')!.split(';')[0]!;
      const page = await fetch(`${url}/inspector/`, { headers: { cookie } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');

      const lite = await connect(`${url}/mcp-lite/v1/`);
      expect(await lite.call('hello')).toMatchObject({ type: 'answer', value: 'hello v1' });
      // A promise made now, whose work finishes before the reload.
      const promised = await lite.call('slow', {}, { redeem: false });
      expect(promised.type).toBe('promise');
      const token = (promised as { token: string }).token;
      await new Promise((resolve) => setTimeout(resolve, 600));
      await lite.close();

      // Edit the helper and the module: a new tool, and the helper's new text.
      const before = cli.stdout().length;
      writeFileSync(join(dir, 'helper.ts'), "export const greeting = (): string => 'hello v2';\n");
      writeFileSync(
        join(dir, 'tools.ts'),
        toolModule(
          "{ name: 'added', description: 'New since the reload', inputSchema: schema, handler: () => 'added' },",
        ),
      );
      await waitFor(cli, /^mcplite dev: reloaded \(tools: .*\badded\b.*\)$/m, before);

      const mcp = await connect(`${url}/mcp`);
      expect((await mcp.listTools()).map((t) => t.name)).toContain('added');
      expect(await mcp.call('added')).toMatchObject({ type: 'answer', value: 'added' });
      expect(await mcp.call('hello')).toMatchObject({ type: 'answer', value: 'hello v2' });
      await mcp.close();

      const again = await connect(`${url}/mcp-lite/v1/`);
      expect(await again.redeem(token)).toMatchObject({ type: 'answer', value: 'slow work done' });
      await again.close();
    },
    180_000,
  );

  it('keeps the previous version serving when an edit does not load, and says why', async () => {
    const dir = mkdtempSync(join(folder, 'broken-'));
    writeFileSync(join(dir, 'helper.ts'), "export const greeting = (): string => 'still here';\n");
    writeFileSync(join(dir, 'tools.ts'), toolModule(''));
    const cli = run(['dev', join(dir, 'tools.ts'), '--port', '0', '--no-open']);
    const [, url] = await waitFor(cli, /^mcplite dev: MCP on (http:\/\/127\.0\.0\.1:\d+)\/mcp /m);
    writeFileSync(join(dir, 'tools.ts'), 'export const tools = [;\n');
    await new Promise<void>((resolve) => {
      const check = () => {
        if (cli.stderr().includes('reload failed, still serving the previous version')) resolve();
      };
      check();
      cli.child.stderr!.on('data', check);
    });
    const client = await connect(`${url}/mcp`);
    expect(await client.call('hello')).toMatchObject({ type: 'answer', value: 'still here' });
    await client.close();
  }, 180_000);

  // An editor's safe save (vim, `sed -i`, most IDEs): a temporary file renamed over the module, a new inode each time.
  it('reloads on every atomic save (temp file + rename), and recovers from a syntax error saved so', async () => {
    const dir = mkdtempSync(join(folder, 'atomic-'));
    const file = join(dir, 'tools.ts');
    const save = (text: string, n: number) => {
      const temp = join(dir, `.tools.ts.${n}.tmp`);
      writeFileSync(temp, text);
      renameSync(temp, file);
    };
    const version = (v: string) =>
      toolModule(`{ name: 'version', description: 'v', inputSchema: schema, handler: () => '${v}' },`);
    writeFileSync(join(dir, 'helper.ts'), "export const greeting = (): string => 'hi';\n");
    writeFileSync(file, version('v1'));
    const cli = run(['dev', file, '--port', '0', '--no-open']);
    const [, url] = await waitFor(cli, /^mcplite dev: MCP on (http:\/\/127\.0\.0\.1:\d+)\/mcp /m);
    const served = async () => {
      const client = await connect(`${url}/mcp`);
      try {
        return (await client.call('version')) as { value?: unknown };
      } finally {
        await client.close();
      }
    };
    for (const v of ['v2', 'v3', 'v4']) {
      const from = cli.stdout().length;
      save(version(v), Number(v.slice(1)));
      await waitFor(cli, /^mcplite dev: reloaded /m, from);
      // Reloads can coalesce; the one that follows this save has read this version.
      await expect.poll(async () => (await served()).value, { timeout: 30_000 }).toBe(v);
    }
    const failedBefore = cli.stderr().split('reload failed').length;
    save('export const tools = [;\n', 5);
    await expect
      .poll(() => cli.stderr().split('reload failed').length, { timeout: 60_000 })
      .toBe(failedBefore + 1);
    expect((await served()).value).toBe('v4');
    const from = cli.stdout().length;
    save(version('v6'), 6);
    await waitFor(cli, /^mcplite dev: reloaded /m, from);
    await expect.poll(async () => (await served()).value, { timeout: 30_000 }).toBe('v6');
  }, 180_000);
});
