/**
 * The MCP-lite gRPC binding over a real port: CallToolStream, with partials, a final message carrying the meta,
 * failures after partials, backpressure, and cancellation reaching the handler.
 */
import { once } from 'node:events';
import { connect as http2Connect } from 'node:http2';
import { connect as netConnect, type Socket } from 'node:net';
import { type ServiceError, status } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import { McpLiteError } from '../../src/core/errors.js';
import {
  errorDetails,
  readStream,
  specProtoPath,
  structToJson,
  toolRequest,
  unary,
} from '../support/grpc-client.js';
import { aborted, expectStatus, floodProgress, useGrpcBinding } from './grpc-binding.fixtures.js';

const live = useGrpcBinding();

describe('CallToolStream', () => {
  it('sends partials, then a final message carrying the complete meta (spec A.4)', async () => {
    const { messages, error } = await readStream(live.spec, toolRequest('report', {}));
    expect(error).toBeUndefined();
    expect(messages).toHaveLength(3);
    expect(messages.slice(0, 2).map((m) => structToJson(m.result))).toEqual([
      { partial: 'Quarterly Report' },
      { partial: { section: 2, text: 'Revenue' } },
    ]);
    for (const m of messages.slice(0, 2)) expect(m.meta).toBeNull();
    const last = messages[2];
    expect(structToJson(last.result)).toEqual({ content: { pages: 2 } });
    expect(last.meta.response_type).toBe('ANSWER');
    expect(Number(last.meta.timestamp)).toBeGreaterThan(0);
  });

  it('marks partials with the partial flag (full client)', async () => {
    const { messages } = await readStream(live.full, toolRequest('report', {}));
    expect(messages.map((m) => m.partial)).toEqual([true, true, false]);
    expect(messages[2].meta.server_version).toBe('1.2.3');
  });

  it('a non-streaming tool answers with one final message', async () => {
    const { messages } = await readStream(live.spec, toolRequest('echo', { message: 'one' }));
    expect(messages).toHaveLength(1);
    expect(structToJson(messages[0].result)).toEqual({ content: { echo: 'one' } });
    expect(messages[0].meta.response_type).toBe('ANSWER');
  });

  it('ends with FAILURE as its final message when the tool fails after partials', async () => {
    const { messages, error } = await readStream(live.spec, toolRequest('report_fail', {}));
    expect(error).toBeUndefined();
    expect(messages.map((m) => m.meta?.response_type ?? null)).toEqual([null, 'FAILURE']);
  });

  it('ends with INTERNAL (no leaked detail) when the handler throws after partials', async () => {
    const { messages, error } = await readStream(live.spec, toolRequest('report_boom', {}));
    expect(messages).toHaveLength(1);
    const e = expectStatus(error, status.INTERNAL);
    expect(e.details).toBe('Internal error');
    expect(JSON.stringify(errorDetails(e))).not.toMatch(/secret|disk/);
  });

  it('protocol errors end the stream with their status before any message', async () => {
    const { messages, error } = await readStream(live.spec, toolRequest('nope', {}));
    expect(messages).toHaveLength(0);
    expectStatus(error, status.NOT_FOUND);
  });

  it('honours backpressure: a client that stops reading stops the handler, which resumes with it', async () => {
    floodProgress.emitted = 0;
    const count = 3000;
    const call = live.full.CallToolStream(toolRequest('flood', { count, size: 4096 }));
    let received = 0;
    let last: any;
    call.on('data', (m: any) => {
      received++;
      last = m;
      if (received === 1) call.pause();
    });
    const ended = once(call, 'end');
    // Wait until the handler is stuck: its count stops moving while the client reads nothing.
    let previous = -1;
    while (floodProgress.emitted !== previous) {
      previous = floodProgress.emitted;
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(received).toBe(1);
    // ~12 MiB in all; a stalled handler has handed over what flow-control windows and buffers hold (~50 here).
    expect(floodProgress.emitted).toBeLessThan(1000);
    call.resume();
    await ended;
    expect(received).toBe(count + 1);
    expect(structToJson(last.result)).toEqual({ content: { sent: count } });
  });

  it('a cancelled call aborts the handler', async () => {
    const call = live.spec.CallToolStream(toolRequest('wait', { key: 'cancel-stream' }));
    const errored = new Promise<ServiceError>((resolve) => call.on('error', resolve));
    call.on('data', () => call.cancel());
    expect((await errored).code).toBe(status.CANCELLED);
    await expect.poll(() => aborted.get('cancel-stream')).toBeInstanceOf(McpLiteError);
    expect((aborted.get('cancel-stream') as McpLiteError).code).toBe('cancelled');
  });

  it('a client that vanishes mid-stream (connection dropped) aborts the handler', async () => {
    const definition = loadSync(specProtoPath(), { keepCase: true }) as any;
    const body: Buffer = definition['mcplite.ToolRequest'].serialize({
      name: 'wait',
      arguments: { fields: { key: { stringValue: 'vanish' } } },
    });
    const frame = Buffer.alloc(5 + body.length);
    frame.writeUInt32BE(body.length, 1);
    body.copy(frame, 5);
    // A socket of our own, so that the client can vanish without a goodbye (no RST_STREAM, no GOAWAY).
    let socket: Socket | undefined;
    const session = http2Connect(`http://${live.grpc.address}`, {
      createConnection: () => {
        socket = netConnect(live.grpc.port, '127.0.0.1');
        return socket;
      },
    });
    session.on('error', () => {});
    const req = session.request({
      ':method': 'POST',
      ':path': '/mcplite.MCPLite/CallToolStream',
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    req.on('error', () => {});
    req.end(frame);
    await once(req, 'data');
    socket!.destroy();
    await expect.poll(() => aborted.get('vanish')).toBeInstanceOf(McpLiteError);
    expect((aborted.get('vanish') as McpLiteError).code).toBe('cancelled');
    // The server is none the worse for it.
    expect(
      (await unary(live.spec, 'CallTool', toolRequest('echo', { message: 'still here' }))).error,
    ).toBeUndefined();
  });
});
