import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  callMessage,
  expectStillServing,
  type JsonRpcResponse,
  postJson,
  rawPost,
  rawRequest,
  startServer,
  type TestServer,
} from '../../../test/support/http-harness.js';
import { defineTool } from '../../index.js';

const RPC_PATH = '/mcp-lite/v1/rpc';
const LIMIT = 1024;

let seenArgs: unknown;

const tools = [
  defineTool({
    name: 'echo',
    description: 'Echoes its text',
    inputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
    handler: ({ text }: { text: string }) => ({ length: text.length }),
  }),
  defineTool({
    name: 'inspect',
    description: 'Keeps its arguments for the test',
    handler: (args: unknown) => {
      seenArgs = args;
      return { keys: Object.keys(args as object) };
    },
  }),
];

let t: TestServer;

beforeAll(async () => {
  t = await startServer({ tools }, { maxBodyBytes: LIMIT });
});
afterAll(() => t.close());
afterEach(async () => {
  await expectStillServing(t.rpcUrl);
});

async function rpcError(body: unknown, expectedStatus: number): Promise<JsonRpcResponse['error']> {
  const res = await postJson(t.rpcUrl, body);
  expect(res.status).toBe(expectedStatus);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const reply = (await res.json()) as JsonRpcResponse;
  expect(reply.jsonrpc).toBe('2.0');
  return reply.error;
}

describe('method and media type', () => {
  it.each(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])(
    'refuses %s with 405 and Allow: POST',
    async (method) => {
      const res = await fetch(t.rpcUrl, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    },
  );

  it('refuses a missing Content-Type with 415', async () => {
    const res = await fetch(t.rpcUrl, { method: 'POST', body: new Uint8Array(Buffer.from('{}')) });
    expect(res.status).toBe(415);
    expect(((await res.json()) as JsonRpcResponse).error!.code).toBe(-32600);
  });

  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
  ])('refuses Content-Type %s with 415', async (type) => {
    const res = await fetch(t.rpcUrl, { method: 'POST', headers: { 'content-type': type }, body: '{}' });
    expect(res.status).toBe(415);
  });

  it('refuses a JSON Content-Type with a charset other than UTF-8 with 415', async () => {
    const res = await fetch(t.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=iso-8859-1' },
      body: JSON.stringify(callMessage('echo', { text: 'x' })),
    });
    expect(res.status).toBe(415);
  });

  it('accepts application/json with a UTF-8 charset in any case', async () => {
    const res = await fetch(t.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'Application/JSON; Charset="UTF-8"' },
      body: JSON.stringify(callMessage('echo', { text: 'x' })),
    });
    expect(res.status).toBe(200);
  });

  it('refuses a compressed body (Content-Encoding: gzip) with 415', async () => {
    const res = await fetch(t.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: new Uint8Array(gzipSync(JSON.stringify(callMessage('echo', { text: 'x' })))),
    });
    expect(res.status).toBe(415);
  });

  it('answers 404 for an unknown endpoint under the base path and for paths outside it', async () => {
    expect((await postJson(`${t.base}nope`, {})).status).toBe(404);
    expect((await postJson(`${t.running.url}/elsewhere`, {})).status).toBe(404);
  });
});

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

describe('parse errors', () => {
  it('answers invalid JSON with -32700 and HTTP 400', async () => {
    const error = await rpcError('{"jsonrpc": "2.0", "id": 1,', 400);
    expect(error!.code).toBe(-32700);
  });

  it('answers an empty body with -32700', async () => {
    expect((await rpcError('', 400))!.code).toBe(-32700);
  });

  it('answers invalid UTF-8 bytes with -32700', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('"}'),
    ]);
    const res = await fetch(t.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array(bytes),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as JsonRpcResponse).error!.code).toBe(-32700);
  });

  it('refuses 100 000 nested brackets cleanly with -32700', async () => {
    const big = await startServer({ tools });
    try {
      const res = await postJson(big.rpcUrl, '['.repeat(100_000));
      expect(res.status).toBe(400);
      const body = (await res.json()) as JsonRpcResponse;
      expect(body.error!.code).toBe(-32700);
      expect(body.error!.message).toMatch(/nested/);
      await expectStillServing(big.rpcUrl);
    } finally {
      await big.close();
    }
  });

  it('refuses deep nesting inside the arguments with -32700', async () => {
    const deep = `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`;
    const res = await postJson(
      t.rpcUrl,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"inspect","arguments":${deep}}}`,
    );
    expect(res.status).toBe(400);
  });

  it('does not count brackets inside strings as nesting', async () => {
    const res = await postJson(
      t.rpcUrl,
      callMessage('echo', { text: `${'['.repeat(200)}"\\${'{'.repeat(200)}` }),
    );
    expect(res.status).toBe(200);
  });
});

describe('invalid requests (-32600, HTTP 400)', () => {
  const cases: Array<[string, unknown]> = [
    ['jsonrpc missing', { id: 1, method: 'tools/list' }],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'tools/list' }],
    ['jsonrpc a number', { jsonrpc: 2, id: 1, method: 'tools/list' }],
    ['id an object', { jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' }],
    ['id an array', { jsonrpc: '2.0', id: [1], method: 'tools/list' }],
    ['id a boolean', { jsonrpc: '2.0', id: true, method: 'tools/list' }],
    ['method missing', { jsonrpc: '2.0', id: 1 }],
    ['method a number', { jsonrpc: '2.0', id: 1, method: 42 }],
    ['method empty', { jsonrpc: '2.0', id: 1, method: '' }],
    ['params a string', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: 'echo' }],
    ['params a number', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: 5 }],
    ['params null', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: null }],
    ['a string', 'tools/list'],
    ['a number', 42],
    ['null', null],
    ['a response object', { jsonrpc: '2.0', id: 1, result: {} }],
  ];

  it.each(cases)('refuses a message with %s', async (_name, message) => {
    const error = await rpcError(JSON.stringify(message), 400);
    expect(error!.code).toBe(-32600);
  });

  it('answers with the id when it is valid, null when it is not', async () => {
    const withId = await postJson(t.rpcUrl, { jsonrpc: '1.0', id: 'keep', method: 'x' });
    expect(((await withId.json()) as JsonRpcResponse).id).toBe('keep');
    const badId = await postJson(t.rpcUrl, { jsonrpc: '2.0', id: { x: 1 }, method: 'x' });
    expect(((await badId.json()) as JsonRpcResponse).id).toBeNull();
  });

  it('refuses an empty batch', async () => {
    expect((await rpcError('[]', 400))!.code).toBe(-32600);
  });

  it('refuses a batch larger than 100', async () => {
    const batch = Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }));
    const big = await startServer({ tools });
    try {
      const res = await postJson(big.rpcUrl, batch);
      expect(res.status).toBe(400);
      expect(((await res.json()) as JsonRpcResponse).error!.code).toBe(-32600);
    } finally {
      await big.close();
    }
  });

  it('refuses a listtools body that is not an object', async () => {
    const res = await postJson(t.toolsUrl, '[]');
    expect(res.status).toBe(400);
    expect(((await res.json()) as JsonRpcResponse).error!.code).toBe(-32600);
  });
});

describe('unknown methods and wrong-typed params', () => {
  it('answers an unknown method with -32601', async () => {
    const error = await rpcError({ jsonrpc: '2.0', id: 1, method: 'resources/list' }, 200);
    expect(error!.code).toBe(-32601);
    expect(error!.data.available_methods).toEqual(['tools/call', 'tools/list']);
  });

  it('answers a method named like an Object.prototype member with -32601', async () => {
    for (const method of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect((await rpcError({ jsonrpc: '2.0', id: 1, method }, 200))!.code).toBe(-32601);
    }
  });

  it.each([
    ['a string', 'text'],
    ['an array', ['text']],
    ['a number', 5],
    ['a boolean', true],
  ])('answers arguments that are %s with -32602 naming "arguments"', async (_name, args) => {
    const error = await rpcError(callMessage('echo', args), 200);
    expect(error!.code).toBe(-32602);
    expect(error!.data.errors[0].field).toBe('arguments');
  });

  it.each([
    ['a number', 5],
    ['missing', undefined],
    ['an object', { x: 1 }],
    ['null', null],
  ])('answers a tool name that is %s with -32602 naming "name"', async (_name, name) => {
    const error = await rpcError(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } },
      200,
    );
    expect(error!.code).toBe(-32602);
    expect(error!.data.errors[0].field).toBe('name');
  });

  it('answers params given as an array with -32602', async () => {
    const error = await rpcError({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: ['echo', {}] }, 200);
    expect(error!.code).toBe(-32602);
  });

  it('answers an elicitation member that is not an object with -32602', async () => {
    const error = await rpcError(callMessage('echo', { text: 'x' }, { elicitation: 'yes' }), 200);
    expect(error!.code).toBe(-32602);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'answers a tool named %s with -32601',
    async (name) => {
      const error = await rpcError(callMessage(name, {}), 200);
      expect(error!.code).toBe(-32601);
    },
  );
});

describe('hostile input', () => {
  it('does not let __proto__ or constructor keys in arguments pollute Object.prototype', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"inspect","arguments":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted2":true}},"ok":1}}}`;
    const res = await postJson(t.rpcUrl, body);
    expect(res.status).toBe(200);
    expect(({} as any).polluted).toBeUndefined();
    expect(({} as any).polluted2).toBeUndefined();
    expect(Object.getPrototypeOf(seenArgs)).toBe(Object.prototype);
    expect((seenArgs as any).ok).toBe(1);
  });

  it('does not let a __proto__ key in params change how the call is read', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"__proto__":{"name":"inspect"}}}`;
    const error = await rpcError(body, 200);
    expect(error!.code).toBe(-32602);
    expect(({} as any).name).toBeUndefined();
  });

  it('handles a huge string within the limit', async () => {
    const big = await startServer({ tools });
    try {
      const text = 'é'.repeat(1_000_000);
      const res = await postJson(big.rpcUrl, callMessage('echo', { text }));
      expect(((await res.json()) as JsonRpcResponse).result.content).toEqual({ length: 1_000_000 });
    } finally {
      await big.close();
    }
  });

  it('answers a huge unknown tool name quickly and without echoing it all back', async () => {
    const big = await startServer({ tools });
    try {
      const name = 'q'.repeat(3_000_000);
      const res = await postJson(big.rpcUrl, callMessage(name, {}));
      const text = await res.text();
      expect(JSON.parse(text).error.code).toBe(-32601);
      expect(text.length).toBeLessThan(10_000);
    } finally {
      await big.close();
    }
  });

  it('answers many concurrent connections', async () => {
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        postJson(t.rpcUrl, { ...callMessage('echo', { text: `n${i}` }), id: i }),
      ),
    );
    const bodies = (await Promise.all(replies.map((r) => r.json()))) as JsonRpcResponse[];
    expect(bodies.map((b) => b.id)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(bodies.every((b) => b.result.content.length >= 2)).toBe(true);
  });
});

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
