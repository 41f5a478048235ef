/**
 * Every operation walks the middleware chain (a real authorization server, real clients, MCP tasks over raw HTTP):
 * MCP `tasks/get` and `tasks/cancel` reach middleware as the `redeem` and `cancel` calls they are, so that a
 * middleware refusing `redeem` of a promise refuses its task twins too, whichever binding made the promise; a call
 * to an unknown or hidden tool and one with bad arguments reach middleware as refused operations (an audit log
 * records the denied attempt, and the caller still gets the refusal); MCP's session methods walk it under their
 * own names. The server: test/support/promise-reach.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcAdapter, httpAdapter } from '../support/cross-binding-mcp-lite.js';
import { webtoolsAdapter } from '../support/cross-binding-webtools.js';
import { type ReachFixture, startReachFixture } from '../support/promise-reach.js';

let f: ReachFixture;

beforeAll(async () => {
  f = await startReachFixture();
}, 60_000);

afterAll(async () => {
  await f?.close();
});

describe.each([httpAdapter, grpcAdapter, webtoolsAdapter])('a promise made over $name', (maker) => {
  it('refused to redeem by a middleware is refused to tasks/get and tasks/cancel, seen as the same operation', async () => {
    const made = await f.call(maker, f.tokens.a, 'hold');
    const promise = made.token!;
    f.blocked.add(promise);
    f.audit.length = 0;
    const redeemed = await f.call(httpAdapter, f.tokens.a, 'redeem', { promise });
    expect(redeemed.reply).toMatchObject({ kind: 'error' });
    const get = await f.mcp('tasks/get', { taskId: promise }, f.tokens.a);
    const cancel = await f.mcp('tasks/cancel', { taskId: promise }, f.tokens.a);
    for (const refused of [get, cancel]) {
      expect(refused.result).toBeUndefined();
      expect(refused).toMatchObject({
        status: 403,
        error: { code: -32003, message: 'This promise is blocked' },
      });
    }
    // The one policy saw the same operation from the redeem call and from its task twin.
    const twin = (name: string) => ({
      method: 'tools/call',
      name,
      arguments: { promise },
      error: 'forbidden',
    });
    expect(f.audit).toEqual([twin('redeem'), twin('redeem'), twin('cancel')]);
    f.blocked.delete(promise);
    expect((await f.mcp('tasks/get', { taskId: promise }, f.tokens.a)).result).toMatchObject({
      status: 'working',
    });
    expect((await f.mcp('tasks/cancel', { taskId: promise }, f.tokens.a)).error).toBeUndefined();
    expect(f.audit.slice(3).map((a) => [a.name, a.error])).toEqual([
      ['redeem', undefined],
      ['cancel', undefined],
    ]);
  });
});

describe('a call core refuses', () => {
  it.each([httpAdapter, grpcAdapter])(
    'reaches middleware as a refused operation over $name',
    async (binding) => {
      f.audit.length = 0;
      const hidden = await f.call(binding, f.tokens.aRead, 'secret_job');
      const unknown = await f.call(binding, f.tokens.aRead, 'no_such_tool');
      const invalid = await f.call(binding, f.tokens.aRead, 'echo', { message: 7 });
      // The caller still gets the refusal: the hidden tool is as unknown as one that never was.
      expect(hidden.reply).toMatchObject({ kind: 'error', class: 'tool_not_found' });
      expect(unknown.reply).toMatchObject({ kind: 'error', class: 'tool_not_found' });
      expect(invalid.reply).toMatchObject({ kind: 'error', class: 'invalid_params' });
      expect(f.audit).toEqual([
        { method: 'tools/call', name: 'secret_job', arguments: undefined, error: 'tool_not_found' },
        { method: 'tools/call', name: 'no_such_tool', arguments: undefined, error: 'tool_not_found' },
        { method: 'tools/call', name: 'echo', arguments: undefined, error: 'invalid_params' },
      ]);
    },
  );
});

describe("MCP's session methods", () => {
  it('walk the chain under their own names', async () => {
    const client = new Client({ name: 'chain', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${f.running.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${f.tokens.a}` } },
      }),
    );
    try {
      f.audit.length = 0;
      await client.setLoggingLevel('debug');
      await client.listResourceTemplates();
      expect(f.audit.map((a) => [a.method, a.name])).toEqual([
        ['logging/setLevel', 'debug'],
        ['resources/templates/list', undefined],
      ]);
    } finally {
      await client.close();
    }
  });
});
