/**
 * Tool search over a large catalog (docs/discovery.md): 5,000 generated tools behind `createServer({ toolSearch })`,
 * some hidden from anonymous callers by visibility. Over real sockets, the official MCP SDK client and the mcplite
 * MCP-lite client see two tools; the search finds the right tool by what it does and never a hidden one (not even
 * when asked by its own words); the call tool calls a found tool and refuses a hidden one as unknown; and the
 * listing a model reads is at least 50 times smaller than the whole catalog's.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { createServer, defineTool, type ToolDefinition, visibleTools } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

const VERBS = [
  'create',
  'delete',
  'list',
  'update',
  'archive',
  'export',
  'import',
  'sync',
  'validate',
  'summarise',
];
const OBJECTS = [
  'invoice',
  'ticket',
  'user',
  'order',
  'shipment',
  'report',
  'document',
  'project',
  'team',
  'alert',
];
const SYSTEMS = Array.from({ length: 50 }, (_, i) => `sys${i}`);

/** 5,000 tools `<system>_<verb>_<object>`, plus the one the test looks for and the hidden ones. */
function catalog(): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  for (const system of SYSTEMS)
    for (const verb of VERBS)
      for (const object of OBJECTS)
        tools.push(
          defineTool({
            name: `${system}_${verb}_${object}`,
            description: `${verb} a ${object} in the ${system} system`,
            inputSchema: {
              type: 'object',
              properties: { id: { type: 'string', description: `The ${object} id` } },
            },
            handler: () => `${verb} ${object}`,
          }),
        );
  tools.splice(
    0,
    3,
    defineTool({
      name: 'currency_convert',
      description: 'Converts an amount of money from one currency to another at the exchange rate of the day',
      inputSchema: {
        type: 'object',
        properties: { amount: { type: 'number' }, from: { type: 'string' }, to: { type: 'string' } },
        required: ['amount', 'from', 'to'],
      },
      handler: (args: { amount: number }) => ({ converted: args.amount * 2 }),
    }),
    defineTool({
      name: 'admin_payroll_export',
      description: 'Exports the salary payroll of every employee (admins only)',
      handler: () => 'salaries',
    }),
    defineTool({
      name: 'admin_currency_override',
      description: 'Overrides the currency exchange rate of the day (admins only)',
      handler: () => 'overridden',
    }),
  );
  return tools;
}

describe('tool search over 5,000 tools', { timeout: 60_000 }, () => {
  let running: RunningServer;
  let fullListingChars = 0;
  let mcp: Client;

  beforeAll(async () => {
    const tools = catalog();
    expect(tools.length).toBe(5000);
    const server = createServer({
      name: 'big',
      tools,
      promiseStore: false,
      toolSearch: { maxResults: 5 },
      middleware: [
        visibleTools((tool, caller) => !tool.name.startsWith('admin_') || caller.principal !== undefined),
      ],
    });
    fullListingChars = server.listTools().json.length;
    running = await serve(server, { port: 0, grpc: false });
    mcp = new Client({ name: 'tool-search-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
  });
  afterAll(async () => {
    await mcp?.close();
    await running?.close(1000);
  });

  /** The names the search tool answers over MCP. */
  async function search(query: string): Promise<string[]> {
    const result = await mcp.callTool({ name: 'search_tools', arguments: { query } });
    const found = result.structuredContent as { tools: { name: string }[] } | undefined;
    expect(found, JSON.stringify(result)).toBeDefined();
    return found!.tools.map((t) => t.name);
  }

  it('lists two tools, at least 50 times fewer characters than the whole catalog', async () => {
    const listed = await mcp.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(['search_tools', 'call_tool']);
    const surfaceChars = JSON.stringify({ tools: listed.tools }).length;
    expect(fullListingChars / surfaceChars).toBeGreaterThanOrEqual(50);
    const lite = await connect(`${running.url}/mcp-lite/v1/`);
    try {
      expect((await lite.listTools()).map((t) => t.name)).toEqual(['search_tools', 'call_tool']);
      // The same search on MCP-lite: the binding does not matter.
      const answer = await lite.call('search_tools', { query: 'convert money between currencies' });
      expect(answer).toMatchObject({ type: 'answer' });
      expect((answer as { value: { tools: { name: string }[] } }).value.tools[0]!.name).toBe(
        'currency_convert',
      );
    } finally {
      await lite.close();
    }
  });

  it('finds the right tool by what it does, and a generated one by its words', async () => {
    expect((await search('convert money between currencies'))[0]).toBe('currency_convert');
    expect((await search('exchange rate'))[0]).toBe('currency_convert');
    const found = await search('archive a shipment in sys17');
    expect(found[0]).toBe('sys17_archive_shipment');
    expect(found.length).toBeLessThanOrEqual(5);
  });

  it('never finds a hidden tool, even by its own words, and will not call one', async () => {
    for (const query of ['payroll salary export', 'admin currency override exchange rate', 'admins only']) {
      const found = await search(query);
      expect(
        found.some((name) => name.startsWith('admin_')),
        `${query}: ${found.join(', ')}`,
      ).toBe(false);
    }
    const hidden = await mcp.callTool({ name: 'call_tool', arguments: { name: 'admin_payroll_export' } });
    const unknown = await mcp.callTool({ name: 'call_tool', arguments: { name: 'no_such_tool' } });
    expect(hidden.isError).toBe(true);
    expect(JSON.stringify(hidden.content)).not.toContain('salaries');
    // Refused exactly as a tool that does not exist is: nothing tells the caller it is there.
    expect(JSON.stringify(hidden.content).replace('admin_payroll_export', 'X')).toBe(
      JSON.stringify(unknown.content).replace('no_such_tool', 'X'),
    );
  });

  it('calls a found tool through the call tool', async () => {
    const result = await mcp.callTool({
      name: 'call_tool',
      arguments: { name: 'currency_convert', arguments: { amount: 21, from: 'EUR', to: 'USD' } },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ converted: 42 });
  });
});

describe('tool search beside long-running tools', () => {
  let running: RunningServer;
  let mcp: Client;
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });

  beforeAll(async () => {
    const server = createServer({
      name: 'slow',
      tools: [
        defineTool({
          name: 'render_video',
          description: 'Renders a video from a script (takes a while)',
          longRunning: true,
          handler: async () => {
            await released;
            return { video: 'rendered.mp4' };
          },
        }),
      ],
      toolSearch: true,
    });
    running = await serve(server, { port: 0, grpc: false });
    mcp = new Client({ name: 'tool-search-promises', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
  });
  afterAll(async () => {
    release();
    await mcp?.close();
    await running?.close(1000);
  });

  it('keeps redeem and cancel listed, and a promise from the call tool is redeemed through them', async () => {
    const listed = (await mcp.listTools()).tools.map((t) => t.name);
    expect(listed).toEqual(expect.arrayContaining(['search_tools', 'call_tool', 'redeem', 'cancel']));
    expect(listed).not.toContain('render_video');
    // The search finds catalog tools only, never the surface's own.
    const found = await mcp.callTool({ name: 'search_tools', arguments: { query: 'redeem render video' } });
    const names = (found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toEqual(['render_video']);

    const started = await mcp.callTool({ name: 'call_tool', arguments: { name: 'render_video' } });
    expect(started.isError, JSON.stringify(started)).toBeFalsy();
    const { promise } = started.structuredContent as { promise: string };
    expect(typeof promise).toBe('string');
    release();
    const redeemed = await mcp.callTool({ name: 'redeem', arguments: { promise, wait_ms: 10_000 } });
    expect(JSON.stringify(redeemed)).toContain('rendered.mp4');
  });
});
