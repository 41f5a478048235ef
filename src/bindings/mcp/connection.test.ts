/**
 * The connection framing's own bookkeeping (stdio, WebSocket and legacy SSE share it): what counts as in flight
 * against `maxInFlight`, and `idle()`. The framings themselves are covered over real streams and sockets.
 */
import { describe, expect, it } from 'vitest';
import { createServer } from '../../create-server.js';
import { openMcpConnection } from './connection.js';
import { McpEngine } from './methods.js';

function open(maxInFlight: number) {
  const server = createServer({
    tools: [
      { name: 'echo', handler: (a: Record<string, unknown>) => a },
      {
        name: 'wait',
        handler: () => new Promise((resolve) => setTimeout(() => resolve('waited'), 30)),
      },
    ],
    promiseStore: false,
  });
  const sent: unknown[] = [];
  const connection = openMcpConnection(
    server,
    new McpEngine(server, {}),
    {
      write: async (text) => {
        sent.push(JSON.parse(text));
      },
      end: () => {},
      principal: undefined,
      remoteAddress: '127.0.0.1',
    },
    { binding: 'test', maxInFlight },
  );
  return { connection, sent };
}

const call = (id: number, name: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
});

describe('openMcpConnection', () => {
  it('counts a batch as one request, a synchronous answer until it is written, and is idle after all', async () => {
    const { connection, sent } = open(2);
    connection.receive({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    });
    await connection.idle();
    connection.receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
    connection.receive([call(1, 'wait'), call(2, 'wait'), call(3, 'wait')]);
    expect(connection.inFlight).toBe(1);
    connection.receive(call(4, 'echo'));
    expect(connection.inFlight).toBe(2);
    connection.receive(call(5, 'wait'));
    await connection.idle();
    expect(connection.inFlight).toBe(0);
    const answers = sent.slice(1);
    expect(answers).toHaveLength(3);
    expect(answers[0]).toMatchObject({ id: 4, result: { content: [{ type: 'text', text: '{}' }] } });
    expect(answers[1]).toMatchObject({ id: 5, error: { code: -32004 } });
    expect((answers[2] as Array<{ id: number }>).map((a) => a.id)).toEqual([1, 2, 3]);
  });
});
