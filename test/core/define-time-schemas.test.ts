/**
 * Issue 26, "Types from schemas": a raw zod shape (`{ title: z.string() }`) or an input schema that describes
 * something other than an object is refused when the tool is defined, with a message saying what to write.
 * Before, a raw shape was read as a JSON Schema of unknown keywords (any arguments passed), and a non-object
 * schema was published, which made the official MCP client's `listTools()` throw for every tool on the server.
 * The compile-time half of this is test/types/define-tool.test-d.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as zod3 } from 'zod3';
import { createServer, defineTool, silentLogger, type ToolDefinition } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

const echo = defineTool({
  name: 'echo',
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => text,
});

/** Tools as a plain object (no defineTool), the way a JavaScript user or a loaded module may give them. */
const untyped = (name: string, inputSchema: unknown): ToolDefinition => ({
  name,
  inputSchema: inputSchema as never,
  handler: () => 'never runs',
});

describe('input schemas refused when the tool is defined', () => {
  it('a raw zod 4 shape names z.object as the fix', () => {
    expect(() => untypedDefine('raw', { title: z.string(), body: z.string() })).toThrow(
      /raw zod shape \(\{ title, body \}\).*write inputSchema: z\.object\(\{ title, body \}\)/,
    );
  });

  it('a raw zod 3 shape too', () => {
    expect(() => untypedDefine('raw3', { title: zod3.string() })).toThrow(/raw zod shape/);
  });

  it.each([
    ['a zod string', z.string(), /describes "string".*z\.object\(\{ value: … \}\)/],
    ['a zod array', z.array(z.number()), /describes "array"/],
    [
      'a zod union of objects (no type)',
      z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]),
      /says no type/,
    ],
    ['JSON Schema of a string', { type: 'string' }, /describes "string".*type: 'object'/],
    ['JSON Schema without a type', { properties: { a: { type: 'string' } } }, /says no type/],
  ])('%s', (_what, schema, message) => {
    expect(() => untypedDefine('bad', schema)).toThrow(message);
    expect(() => createServer({ tools: [untyped('bad', schema)], logger: silentLogger })).toThrow(message);
  });

  it('object schemas of every kind still define', () => {
    expect(() => untypedDefine('zod', z.object({ a: z.string() }))).not.toThrow();
    expect(() =>
      untypedDefine('json', { type: 'object', properties: { a: { type: 'string' } } }),
    ).not.toThrow();
    expect(() => defineTool({ name: 'none', handler: () => 1 })).not.toThrow();
  });
});

describe('a refused tool never reaches a listing (official MCP SDK client over Streamable HTTP)', () => {
  let running: RunningServer;
  const server = createServer({ name: 'schemas', tools: [echo], logger: silentLogger });
  beforeAll(async () => {
    running = await serve(server, { port: 0 });
  });
  afterAll(() => running.close(1000));

  it('adding a tool with a non-object input schema throws, and listTools still lists every other tool', async () => {
    expect(() => server.catalog.add(untyped('count', z.number()))).toThrow(
      /Invalid inputSchema of tool "count"/,
    );
    const client = new Client({ name: 'schemas-test', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['echo']);
      expect(tools[0]?.inputSchema.type).toBe('object');
    } finally {
      await client.close();
    }
  });
});

/** defineTool as plain JavaScript calls it: the compile-time check is out of the way. */
function untypedDefine(name: string, inputSchema: unknown): unknown {
  return (defineTool as (d: ToolDefinition) => ToolDefinition)(untyped(name, inputSchema));
}
