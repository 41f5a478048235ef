/**
 * The draft-seed dialect (`mcp-detailed-draft-spec-2025-06-18.md`) over Streamable HTTP on one server: a draft
 * `initialize` POSTed to `/mcp` makes a draft session answered in the draft shapes (progress, cancel,
 * tools/changed, resources/changed, shutdown and exit), while MCP clients of the same endpoint keep MCP shapes.
 */
import { describe, expect, it } from 'vitest';
import { aborted, answer, httpTranscript, INVOKE, post, useDraftServer } from '../support/draft-dialect.js';

describe('the draft-seed dialect over Streamable HTTP', () => {
  const live = useDraftServer();

  it('a draft initialize POSTed to /mcp makes a draft session: every message answered in the draft shapes', async () => {
    aborted.length = 0;
    const replica = { url: live.running.url, server: live.server };
    await httpTranscript(replica, replica);
  });

  it('leaves MCP clients of the same endpoint in MCP shapes', async () => {
    const init = await post(live.running.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mcp', version: '1' } },
    });
    expect((await init.json()).result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: {} });
    const session = init.headers.get('mcp-session-id')!;
    const listed = await answer(live.running.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
    expect(listed.result.tools).toEqual([expect.objectContaining({ name: 'get_weather' })]);
    const invoked = await answer(live.running.url, INVOKE, session);
    expect(invoked.result.structuredContent).toEqual({ temperature: 89, condition: 'Sunny' });
    const missing = await answer(
      live.running.url,
      { ...INVOKE, params: { name: 'get_weather', arguments: {} } },
      session,
    );
    // An MCP client gets invalid arguments as the tool's error, a result (SEP-1303); the draft's client a 4001.
    expect(missing.result).toMatchObject({
      isError: true,
      _meta: { 'mcplite/error': { code: 'invalid_params' } },
    });
  });
});
