import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { rawPost, rawRequest, waitFor } from '../../test/support/http-harness.js';
import type { NeutralHandler } from '../core/http.js';
import { listenNode, type NodeListening } from './node.js';

let listening: NodeListening | undefined;
afterEach(async () => {
  listening?.server.closeAllConnections();
  await listening?.close();
  listening = undefined;
});

/** Serves a neutral handler that reads the body and answers with its length. */
async function serveBodyLength(onRead?: (outcome: string) => void): Promise<NodeListening> {
  const handler: NeutralHandler = async (request) => {
    onRead?.('reading');
    try {
      const body = await request.readBody(1024 * 1024);
      onRead?.(`read ${body.byteLength}`);
      return {
        status: 200,
        headers: { 'content-type': 'text/plain' },
        body: `${request.path} ${body.byteLength}`,
      };
    } catch (err) {
      onRead?.(`rejected ${(err as { code?: string }).code}`);
      throw err;
    }
  };
  listening = await listenNode(handler);
  return listening;
}

describe('the node adapter', () => {
  it('sends Content-Length for whole bodies instead of chunking them', async () => {
    const { port } = await serveBodyLength();
    const res = await rawRequest(
      port,
      rawPost('/x', port, { 'content-length': 3, connection: 'close' }, 'abc'),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe('4');
    expect(res.headers['transfer-encoding']).toBeUndefined();
    expect(res.body).toBe('/x 3');
  });

  it('reads the path of an absolute-form request target', async () => {
    const { port } = await serveBodyLength();
    const head = `POST http://127.0.0.1:${port}/a/b?q=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 2\r\n\r\nhi`;
    const res = await rawRequest(port, head);
    expect(res.body).toBe('/a/b 2');
  });

  it('rejects a body read when the client disconnects halfway, instead of waiting forever', async () => {
    const outcomes: string[] = [];
    const { port } = await serveBodyLength((o) => outcomes.push(o));
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(rawPost('/x', port, { 'content-length': 1000 }, 'only a little'));
    await waitFor(() => outcomes.includes('reading'), 5000, 'the handler to start reading');
    socket.destroy();
    await waitFor(() => outcomes.length > 1, 5000, 'the body read to end');
    expect(outcomes).toEqual(['reading', 'rejected cancelled']);
  });

  it('closes the connection after answering without reading a pending body', async () => {
    listening = await listenNode(async () => ({ status: 401, headers: {}, body: 'no' }));
    const { port } = listening;
    const res = await rawRequest(
      port,
      rawPost('/x', port, { 'content-length': 10_000_000 }, 'x'.repeat(100)),
    );
    expect(res.status).toBe(401);
    expect(res.headers.connection).toBe('close');
  });

  it('keeps the connection alive after answering a request it read whole', async () => {
    const { port } = await serveBodyLength();
    const res = await rawRequest(port, rawPost('/x', port, { 'content-length': 2 }, 'ok'));
    expect(res.headers.connection).toBe('keep-alive');
  });
});
