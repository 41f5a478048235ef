/**
 * Slow and vanishing clients of the MCP-lite HTTP binding: headers or bodies that never finish are cut by the
 * timeouts, and clients hanging up mid-body leave the server serving.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { expectStillServing, rawPost, rawRequest, startServer } from '../support/http-harness.js';
import { RPC_PATH, t, tools, useBadInputServer } from './bad-input.fixtures.js';

useBadInputServer();

describe('timeouts', () => {
  it('closes a slowloris connection whose headers never finish (headersTimeoutMs)', async () => {
    const slow = await startServer({ tools }, { headersTimeoutMs: 300, requestTimeoutMs: 600 });
    try {
      const started = Date.now();
      const outcome = await new Promise<string>((resolve) => {
        const socket = connect(slow.port, '127.0.0.1', () => {
          socket.write(`POST ${RPC_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
          // Drip a header byte now and then, never finishing the head.
          const drip = setInterval(() => socket.write('X-A: b\r\n'), 50);
          socket.on('close', () => {
            clearInterval(drip);
            resolve('closed');
          });
        });
        let received = '';
        socket.on('data', (d) => {
          received += d.toString();
        });
        socket.on('error', () => {});
        socket.on('end', () => resolve(received || 'ended'));
        setTimeout(() => resolve('still open'), 10_000).unref();
      });
      expect(outcome).not.toBe('still open');
      expect(Date.now() - started).toBeLessThan(10_000);
      await expectStillServing(slow.rpcUrl);
    } finally {
      await slow.close();
    }
  });

  it('starts with a request timeout shorter than the default header timeout', async () => {
    const short = await startServer({ tools }, { requestTimeoutMs: 2000 });
    try {
      await expectStillServing(short.rpcUrl);
    } finally {
      await short.close();
    }
  });

  it('carries on when clients hang up in the middle of their bodies', async () => {
    // Each client declares 100 bytes, sends a few and goes away (half of them with a reset): the body reads
    // end without an answer to write, and nothing may crash the server or stay pending.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        return new Promise<void>((resolve, reject) => {
          const socket = connect(t.port, '127.0.0.1', () => {
            socket.write(
              rawPost(
                RPC_PATH,
                t.port,
                { 'content-type': 'application/json', 'content-length': 100 },
                '{"jsonrpc":',
              ),
            );
            setTimeout(() => (i % 2 ? socket.resetAndDestroy() : socket.destroy()), 20);
          });
          socket.on('close', () => resolve());
          socket.on('error', (err: NodeJS.ErrnoException) =>
            err.code === 'ECONNRESET' ? resolve() : reject(err),
          );
        });
      }),
    );
    await expectStillServing(t.rpcUrl);
  });

  it('closes a connection whose body never finishes (requestTimeoutMs)', async () => {
    const slow = await startServer({ tools }, { requestTimeoutMs: 400, headersTimeoutMs: 200 });
    try {
      const res = await rawRequest(
        slow.port,
        rawPost(
          RPC_PATH,
          slow.port,
          { 'content-type': 'application/json', 'content-length': 100 },
          '{"jsonrpc":',
        ),
      ).catch((err: Error) => err);
      // Either node answers 408 or it just closes; both end the attack.
      if (!(res instanceof Error)) expect(res.status).toBe(408);
      await expectStillServing(slow.rpcUrl);
    } finally {
      await slow.close();
    }
  });
});
