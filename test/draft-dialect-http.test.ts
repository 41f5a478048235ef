/**
 * The draft-seed dialect (`mcp-detailed-draft-spec-2025-06-18.md`) over Streamable HTTP on one server: a draft
 * `initialize` POSTed to `/mcp` makes a draft session answered in the draft shapes (progress, cancel,
 * tools/changed, resources/changed, shutdown and exit), while MCP clients of the same endpoint keep MCP shapes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, serve, type ToolServer } from '../src/index.js';
import { aborted, answer, httpTranscript, INVOKE, makeServer, post } from './support/draft-dialect.js';

describe('the draft-seed dialect over Streamable HTTP', () => {
  let server: ToolServer;
  let running: RunningServer;
  beforeAll(async () => {
    server = makeServer();
    running = await serve(server, { port: 0 });
  });
  afterAll(() => running.close(1000));

  it('a draft initialize POSTed to /mcp makes a draft session: every message answered in the draft shapes', async () => {
    aborted.length = 0;
    const replica = { url: running.url, server };
    await httpTranscript(replica, replica);
  });

  it('leaves MCP clients of the same endpoint in MCP shapes', async () => {
    const init = await post(running.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcp', version: '1' } },
    });
    expect((await init.json()).result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: {} });
    const session = init.headers.get('mcp-session-id')!;
    const listed = await answer(running.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
    expect(listed.result.tools).toEqual([expect.objectContaining({ name: 'get_weather' })]);
    const invoked = await answer(running.url, INVOKE, session);
    expect(invoked.result.structuredContent).toEqual({ temperature: 89, condition: 'Sunny' });
    const missing = await answer(
      running.url,
      { ...INVOKE, params: { name: 'get_weather', arguments: {} } },
      session,
    );
    expect(missing.error.code).toBe(-32602);
  });
});
