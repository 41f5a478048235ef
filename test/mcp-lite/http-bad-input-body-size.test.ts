/**
 * Bad input to the MCP-lite HTTP binding, body size: bodies over `maxBodyBytes` (declared, chunked, or
 * announced with Expect: 100-continue) are refused with 413, the default 4 MiB limit included.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callMessage,
  type JsonRpcResponse,
  postJson,
  rawPost,
  rawRequest,
  startServer,
  type TestServer,
} from '../support/http-harness.js';
import { LIMIT, RPC_PATH, t, tools, useBadInputServer } from './bad-input.fixtures.js';

useBadInputServer();

describe('body size', () => {
  it('refuses a body over maxBodyBytes with 413', async () => {
    const res = await postJson(t.rpcUrl, callMessage('echo', { text: 'x'.repeat(LIMIT) }));
    expect(res.status).toBe(413);
    expect(((await res.json()) as JsonRpcResponse).error!.code).toBe(-32600);
  });

  it('accepts a body of exactly maxBodyBytes', async () => {
    const message = callMessage('echo', { text: '' });
    message.params.arguments = { text: 'y'.repeat(LIMIT - JSON.stringify(message).length) };
    const exact = JSON.stringify(message);
    expect(Buffer.byteLength(exact)).toBe(LIMIT);
    expect((await postJson(t.rpcUrl, exact)).status).toBe(200);
  });

  it('answers a declared huge Content-Length with 413 at once, without waiting for the body', async () => {
    // Only 10 bytes of the declared gigabyte are sent: a server that buffered first would never answer 413.
    const res = await rawRequest(
      t.port,
      rawPost(
        RPC_PATH,
        t.port,
        { 'content-type': 'application/json', 'content-length': 1024 ** 3 },
        '{"jsonrpc"',
      ),
    );
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body).error.code).toBe(-32600);
  });

  it('cuts a chunked body that grows past the limit with 413 before it ends', async () => {
    let sent = 0;
    const res = await rawRequest(
      t.port,
      rawPost(RPC_PATH, t.port, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
      {
        onConnected: (write, isDone) => {
          const chunk = `100\r\n${' '.repeat(256)}\r\n`;
          const pump = () => {
            // Keep growing (up to 64 times the limit) until the server answers; never send the final 0-chunk.
            while (!isDone() && sent < LIMIT * 64) {
              sent += 256;
              if (!write(chunk)) break;
            }
            if (!isDone() && sent < LIMIT * 64) setTimeout(pump, 5);
          };
          pump();
        },
      },
    );
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
  });

  describe('with the default limit (4 MiB)', () => {
    let d: TestServer;
    beforeAll(async () => {
      d = await startServer({ tools });
    });
    afterAll(() => d.close());

    it('refuses a declared Content-Length of 4 MiB + 1 with 413', async () => {
      const res = await rawRequest(
        d.port,
        rawPost(
          RPC_PATH,
          d.port,
          { 'content-type': 'application/json', 'content-length': 4 * 1024 * 1024 + 1 },
          '{',
        ),
      );
      expect(res.status).toBe(413);
    });

    it('accepts a body just under 4 MiB', async () => {
      const res = await postJson(d.rpcUrl, callMessage('echo', { text: 'z'.repeat(4 * 1024 * 1024 - 200) }));
      expect(res.status).toBe(200);
      expect(((await res.json()) as JsonRpcResponse).result.content).toEqual({
        length: 4 * 1024 * 1024 - 200,
      });
    });

    it('refuses a chunked body that grows past 4 MiB with 413', async () => {
      let sent = 0;
      const res = await rawRequest(
        d.port,
        rawPost(RPC_PATH, d.port, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
        {
          onConnected: (write, isDone) => {
            const size = 64 * 1024;
            const chunk = `${size.toString(16)}\r\n${' '.repeat(size)}\r\n`;
            const pump = () => {
              while (!isDone() && sent < 64 * 1024 * 1024) {
                sent += size;
                if (!write(chunk)) break;
              }
              if (!isDone() && sent < 64 * 1024 * 1024) setTimeout(pump, 1);
            };
            pump();
          },
        },
      );
      expect(res.status).toBe(413);
      expect(sent).toBeLessThan(64 * 1024 * 1024);
    });
  });
});

describe('Expect: 100-continue', () => {
  /** Connects, sends `head`, and hands back a reader of everything the server sends. */
  async function open(head: string) {
    const socket = connect(t.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (d) => {
      received += d.toString('latin1');
    });
    socket.on('error', () => {});
    socket.write(head);
    const until = async (pattern: RegExp) => {
      const started = Date.now();
      while (!pattern.test(received)) {
        if (Date.now() - started > 5000) throw new Error(`no ${pattern} in ${JSON.stringify(received)}`);
        await new Promise((r) => setTimeout(r, 5));
      }
      return received;
    };
    return { socket, until };
  }

  it('refuses a too-large declared body with 413 instead of inviting the upload with 100 Continue', async () => {
    const { socket, until } = await open(
      rawPost(RPC_PATH, t.port, {
        'content-type': 'application/json',
        'content-length': LIMIT * 10,
        expect: '100-continue',
      }),
    );
    const received = await until(/\r\n\r\n/);
    expect(received.startsWith('HTTP/1.1 413')).toBe(true);
    socket.destroy();
  });

  it('sends 100 Continue for an acceptable body, then answers it', async () => {
    const body = JSON.stringify(callMessage('echo', { text: 'continued' }));
    const { socket, until } = await open(
      rawPost(RPC_PATH, t.port, {
        'content-type': 'application/json',
        'content-length': body.length,
        expect: '100-continue',
      }),
    );
    expect(await until(/\r\n\r\n/)).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
    socket.write(body);
    const received = await until(/"result"/);
    expect(received).toMatch(/HTTP\/1\.1 200 OK/);
    expect(received).toContain('"length":9');
    socket.destroy();
  });
});
