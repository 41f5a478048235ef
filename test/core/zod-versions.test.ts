/**
 * zod 3 and zod 4 schemas (issue 9: a zod 3 schema failed with "data/required must be array"). zod 4 schemas
 * describe themselves as JSON Schema and are served; a zod 3 schema cannot (nor can zod 3.25's `zod/v4`), and
 * is refused when the server is created, with a message saying what to use instead; the JSON Schema that
 * advice gives is served. zod 3 is the dev dependency `zod3` (an npm alias of zod@3.25).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { z as zod4 } from 'zod';
import { z as zod3 } from 'zod3';
import { z as zod3v4 } from 'zod3/v4';
import { createServer, defineTool } from '../../src/index.js';
import { serve } from '../../src/node.js';
import { children, run } from '../support/cli-process.js';
import { callMessage, rpc } from '../support/mcp-lite-http.js';

const dir = mkdtempSync(join(tmpdir(), 'mcplite-zod-'));
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const greet = (inputSchema: unknown) =>
  defineTool({
    name: 'greet',
    description: 'Greets',
    inputSchema: inputSchema as never,
    handler: ({ name }: { name: string }) => `Hello, ${name}!`,
  });

describe('zod versions', () => {
  it.each([
    ['zod 4', zod4.object({ name: zod4.string().min(1) })],
    [
      "z.toJSONSchema of zod 3.25's zod/v4",
      zod3v4.toJSONSchema(zod3v4.object({ name: zod3v4.string().min(1) })),
    ],
  ])('%s: listed as JSON Schema and validated over HTTP', async (_label, schema) => {
    const running = await serve(createServer({ tools: [greet(schema)] }), { port: 0 });
    try {
      const base = `${running.url}/mcp-lite/v1/`;
      const listed = (await (
        await fetch(`${base}tools`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).json()) as any;
      expect(listed.tools.find((t: any) => t.name === 'greet').inputSchema).toMatchObject({
        type: 'object',
        properties: { name: { type: 'string', minLength: 1 } },
        required: ['name'],
      });
      expect((await rpc(`${base}calltools`, callMessage(1, 'greet', { name: 'Ada' }))).result!.content).toBe(
        'Hello, Ada!',
      );
      expect((await rpc(`${base}calltools`, callMessage(2, 'greet', { name: '' }))).error!.code).toBe(-32602);
    } finally {
      await running.close(500);
    }
  });

  it('zod 3: createServer refuses it naming the tool and what to use instead', () => {
    expect(() => createServer({ tools: [greet(zod3.object({ name: zod3.string() }))] })).toThrow(
      /Invalid inputSchema of tool "greet": This is a zod 3 schema.*zod@4.*JSON Schema/,
    );
    expect(() => createServer({ tools: [greet(zod3v4.object({ name: zod3v4.string() }))] })).toThrow(
      /This zod\/v4 schema \(from zod 3.25\).*z.toJSONSchema/,
    );
  });

  it('zod 3 in a module served by the CLI: exit 2 with the same advice, not "data/required must be array"', async () => {
    const zod3Url = pathToFileURL(createRequire(import.meta.url).resolve('zod3')).href;
    const path = join(dir, 'zod3-tools.mjs');
    writeFileSync(
      path,
      `import { z } from '${zod3Url}';
      export const tools = [{ name: 'greet', inputSchema: z.object({ name: z.string() }), handler: ({ name }) => name }];
      `,
    );
    const cli = run(['serve', path, '--port', '0', '--grpc-port', 'off']);
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain('This is a zod 3 schema');
    expect(cli.stderr()).not.toContain('must be array');
  }, 120_000);
});
