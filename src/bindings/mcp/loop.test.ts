/**
 * The JSON-RPC loop that Streamable HTTP and stdio share, through both framings: the peer address core gets for
 * per-caller bounds, the revision a request that names none is read as, and batches answered as one array.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from '../../../test/support/http-harness.js';
import type { CallRequest } from '../../core/call-request.js';
import { ToolServer } from '../../core/server.js';
import { type RunningServer, serve } from '../../node.js';
import type { McpNativeTool } from './native.js';
import { DEFAULT_REVISION } from './revisions.js';
import { serveMcpStdio } from './stdio/index.js';

/** A real tool server that remembers the peer address of every call core received. */
class RecordingServer extends ToolServer {
  readonly addresses: Array<string | undefined> = [];
  override call(request: CallRequest) {
    this.addresses.push(request.remoteAddress);
    return super.call(request);
  }
}

/** A native tool that answers with the revision its request was read as. */
const revisionTool: McpNativeTool = {
  tool: { name: 'revision', inputSchema: { type: 'object' } },
  handler: (_params, ctx) => ({ content: [{ type: 'text', text: ctx.revision }] }),
};

let server: RecordingServer;
let running: RunningServer;
let url: string;

beforeAll(async () => {
  server = new RecordingServer({ tools: [{ name: 'echo', handler: (a) => a }] });
  running = await serve(server, { port: 0, mcp: { nativeTools: [revisionTool] } });
  url = `${running.url}/mcp`;
});
afterAll(() => running.close(1000));

const call = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
});

describe('Streamable HTTP through the loop', () => {
  it('hands core the peer address of a tools/call (sync and batched)', async () => {
    server.addresses.length = 0;
    const one = await postJson(url, call(1, 'echo'));
    expect((await one.json()).result.structuredContent).toEqual({});
    const batch = await postJson(url, [call(2, 'echo'), call(3, 'echo')], {
      'mcp-protocol-version': '2025-03-26',
    });
    expect(await batch.json()).toHaveLength(2);
    expect(server.addresses).toHaveLength(3);
    for (const address of server.addresses) expect(address).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });

  it(`reads a request without session or version header as ${DEFAULT_REVISION}, else as the header says`, async () => {
    const bare = await (await postJson(url, call(1, 'revision'))).json();
    expect(bare.result.content[0].text).toBe('2025-03-26');
    const named = await (
      await postJson(url, call(2, 'revision'), { 'mcp-protocol-version': '2025-06-18' })
    ).json();
    expect(named.result.content[0].text).toBe('2025-06-18');
  });
});

describe('stdio through the loop', () => {
  it('answers a batch as one JSON array line, and an initialize inside it with -32600', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const stdio = serveMcpStdio(new ToolServer({ tools: [] }), { input, output });
    const lines: string[] = [];
    let buffered = '';
    const got = new Promise<void>((resolve) => {
      output.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const parts = buffered.split('\n');
        buffered = parts.pop()!;
        lines.push(...parts);
        if (lines.length > 0) resolve();
      });
    });
    input.write(
      `${JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 2, method: 'initialize', params: {} },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
      ])}\n`,
    );
    await got;
    stdio.close();
    const answers = JSON.parse(lines[0]!);
    expect(answers).toHaveLength(2);
    const byId = Object.fromEntries(answers.map((m: { id: number }) => [m.id, m]));
    expect(byId[1].result).toEqual({});
    expect(byId[2].error.code).toBe(-32600);
  });
});
