/**
 * The stateless (2026-07-28) client when a response stream breaks before its response, against a real socket: a
 * stream with event ids is resumed (GET with Last-Event-ID), one without is re-issued once for a request that is
 * safe to repeat, and a tool call is never sent twice (`unavailable`, `data.reason: "stream_broken"`). And the
 * -32022 retry: a server that refuses the revision but lists it is asked again.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, McpLiteError } from '../../src/client/index.js';

interface Seen {
  method: string;
  rpc?: string;
  lastEventId?: string;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** A stateless MCP endpoint whose answers `answer` decides, recording every request it sees. */
async function endpoint(
  answer: (seen: Seen, body: { id?: number; method?: string }, res: ServerResponse, count: number) => void,
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (c) => {
      text += c;
    });
    req.on('end', () => {
      const body = text ? (JSON.parse(text) as { id?: number; method?: string }) : {};
      const entry: Seen = {
        method: req.method ?? '',
        ...(body.method ? { rpc: body.method } : {}),
        ...(req.headers['last-event-id'] ? { lastEventId: String(req.headers['last-event-id']) } : {}),
      };
      seen.push(entry);
      answer(entry, body, res, seen.length);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/mcp`, seen };
}

const TOOLS = { tools: [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object' } }] };
const sse = (res: ServerResponse) =>
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }).flushHeaders();
const json = (res: ServerResponse, body: unknown, status = 200) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

describe('the stateless client and a broken response stream', () => {
  it('resumes a stream that gave event ids with a GET and Last-Event-ID', async () => {
    let postId = 0;
    const { url, seen } = await endpoint((entry, body, res) => {
      // The listing the client makes before its first call (for the tools' Mcp-Param headers) is plain.
      if (entry.rpc === 'tools/list') json(res, { jsonrpc: '2.0', id: body.id, result: TOOLS });
      else if (entry.method === 'POST') {
        postId = body.id!;
        sse(res);
        res.write(
          `id: e1\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: {} })}\n\n`,
        );
        // The connection breaks before the response.
        setTimeout(() => res.socket?.destroy(), 20);
      } else {
        sse(res);
        const result = { content: [{ type: 'text', text: 'resumed' }] };
        res.end(`id: e2\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: postId, result })}\n\n`);
      }
    });
    const client = await connect(url, { binding: 'mcp', mcpRevision: 'stateless' });
    try {
      expect(await client.call('echo', {}, { timeout: 10_000 })).toMatchObject({
        type: 'answer',
        value: 'resumed',
      });
    } finally {
      await client.close();
    }
    expect(seen.filter((s) => s.rpc !== 'tools/list')).toEqual([
      { method: 'POST', rpc: 'tools/call' },
      { method: 'GET', lastEventId: 'e1' },
    ]);
  });

  it('re-issues a listing whose stream broke without ids, once; never a tool call', async () => {
    const { url, seen } = await endpoint((entry, body, res, count) => {
      if (entry.rpc === 'tools/list' && count === 1) {
        sse(res);
        res.write(': nothing yet\n\n');
        setTimeout(() => res.socket?.destroy(), 20);
      } else if (entry.rpc === 'tools/list') json(res, { jsonrpc: '2.0', id: body.id, result: TOOLS });
      else {
        sse(res);
        setTimeout(() => res.socket?.destroy(), 20);
      }
    });
    const client = await connect(url, { binding: 'mcp', mcpRevision: 'stateless' });
    try {
      expect((await client.listTools()).map((t) => t.name)).toEqual(['echo']);
      const err = (await client
        .call('echo', {}, { timeout: 10_000 })
        .catch((e: unknown) => e)) as McpLiteError;
      expect(err).toBeInstanceOf(McpLiteError);
      expect(err.code).toBe('unavailable');
      expect(err.data?.reason).toBe('stream_broken');
    } finally {
      await client.close();
    }
    expect(seen.map((s) => s.rpc)).toEqual(['tools/list', 'tools/list', 'tools/call']);
  });

  it('asks again after -32022 when the server lists the revision it refused', async () => {
    const { url, seen } = await endpoint((_entry, body, res, count) => {
      if (count === 1)
        json(
          res,
          {
            jsonrpc: '2.0',
            id: body.id,
            error: {
              code: -32022,
              message: 'Unsupported protocol version',
              data: { supported: ['2026-07-28'] },
            },
          },
          400,
        );
      else json(res, { jsonrpc: '2.0', id: body.id, result: TOOLS });
    });
    const client = await connect(url, { binding: 'mcp', mcpRevision: 'stateless' });
    try {
      expect((await client.listTools()).map((t) => t.name)).toEqual(['echo']);
    } finally {
      await client.close();
    }
    expect(seen.map((s) => s.rpc)).toEqual(['tools/list', 'tools/list']);
  });
});
