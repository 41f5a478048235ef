/**
 * One rule for reaching a promise, whichever way it is reached (a real authorization server, real clients on every
 * binding, MCP tasks over raw HTTP): a promise made over MCP-lite HTTP, gRPC or Webtools by principal A is unknown
 * to principal B through MCP `tasks/get` and `tasks/cancel` and through `redeem` and `cancel` on every binding,
 * exactly as a token that never existed; a token of A without the tool's scope is refused its result; a tool A's
 * token may not see makes its promise unknown. The server: test/support/promise-reach.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPromiseToken } from '../../src/core/promises/token.js';
import { grpcAdapter, httpAdapter } from '../support/cross-binding-mcp-lite.js';
import { mcpStreamableHttpAdapter } from '../support/cross-binding-mcp-sdk.js';
import type { BindingAdapter, Reply } from '../support/cross-binding-shape.js';
import { webtoolsAdapter } from '../support/cross-binding-webtools.js';
import { type ReachFixture, startReachFixture } from '../support/promise-reach.js';

const BINDINGS: BindingAdapter[] = [httpAdapter, grpcAdapter, webtoolsAdapter, mcpStreamableHttpAdapter];
const MAKERS: BindingAdapter[] = [httpAdapter, grpcAdapter, webtoolsAdapter];

let f: ReachFixture;

beforeAll(async () => {
  f = await startReachFixture();
}, 60_000);

afterAll(async () => {
  await f?.close();
});

/** Calls `name` through `binding` with `token`; the reply and the promise token it carried. */

/** A promise of `tool` made by `token` through `binding`. */
async function promised(binding: BindingAdapter, token: string, tool: string): Promise<string> {
  const made = await f.call(binding, token, tool);
  expect(made.reply).toMatchObject({ kind: 'result', response_type: 'promise' });
  return made.token!;
}

/** The error of a tasks/get or tasks/cancel of a task that never existed: what another's must look like. */
async function neverExisted(method: string, token: string) {
  const unknown = await f.mcp(method, { taskId: newPromiseToken() }, token);
  expect(unknown.error?.data?.reason).toBe('task_not_found');
  return unknown;
}

const errorOf = (reply: Reply) => (reply.kind === 'error' ? reply.class : reply);

describe.each(MAKERS)('a promise made over $name by principal A', (maker) => {
  it('is unknown to principal B through tasks/get, tasks/cancel, redeem and cancel on every binding', async () => {
    const taskId = await promised(maker, f.tokens.a, 'hold');
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const theirs = await f.mcp(method, { taskId }, f.tokens.b);
      const unknown = await neverExisted(method, f.tokens.b);
      expect({
        ...theirs,
        error: { ...theirs.error, data: { ...theirs.error?.data, taskId: '<id>' } },
      }).toEqual({
        ...unknown,
        error: {
          ...unknown.error,
          message: expect.any(String),
          data: { ...unknown.error?.data, taskId: '<id>' },
        },
      });
      expect(theirs.result).toBeUndefined();
    }
    for (const binding of BINDINGS) {
      for (const tool of ['redeem', 'cancel']) {
        const { reply } = await f.call(binding, f.tokens.b, tool, { promise: taskId });
        expect([binding.name, tool, errorOf(reply)]).toEqual([binding.name, tool, 'promise_not_found']);
      }
    }
    // Nothing B sent reached it: still working for A, who can cancel it.
    expect((await f.mcp('tasks/get', { taskId }, f.tokens.a)).result).toMatchObject({
      taskId,
      status: 'working',
    });
    expect((await f.mcp('tasks/cancel', { taskId }, f.tokens.a)).result).toBeDefined();
    expect((await f.mcp('tasks/get', { taskId }, f.tokens.a)).result).toMatchObject({ status: 'cancelled' });
  });
});

describe('a promise of a scoped tool', () => {
  it("is refused to the owner's token without the scope (redeem on every binding, tasks/get), given to one with it", async () => {
    const taskId = await promised(httpAdapter, f.tokens.a, 'export_documents');
    for (const binding of BINDINGS) {
      const { reply } = await f.call(binding, f.tokens.aRead, 'redeem', { promise: taskId });
      // Refused (an error; Webtools' envelope reads as a failure), never the result.
      expect([binding.name, reply.kind === 'error' || reply.response_type === 'failure']).toEqual([
        binding.name,
        true,
      ]);
      expect(JSON.stringify(reply)).not.toContain('exported');
    }
    const read = await f.mcp('tasks/get', { taskId }, f.tokens.aRead);
    expect(read.result).toBeUndefined();
    expect(read).toMatchObject({ status: 403, error: { code: -32003 } });
    const cancelled = await f.mcp('tasks/cancel', { taskId }, f.tokens.aRead);
    expect(cancelled).toMatchObject({ status: 403, error: { code: -32003 } });
    let done = (await f.mcp('tasks/get', { taskId }, f.tokens.a)).result;
    for (let i = 0; i < 200 && done?.status === 'working'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      done = (await f.mcp('tasks/get', { taskId }, f.tokens.a)).result;
    }
    expect(done).toMatchObject({ status: 'completed', result: { structuredContent: { exported: 3 } } });
  });
});

describe('a promise of a hidden tool', () => {
  it('is unknown to a token that may not see the tool, on every binding and through tasks', async () => {
    const taskId = await promised(httpAdapter, f.tokens.a, 'secret_job');
    for (const binding of BINDINGS) {
      const { reply } = await f.call(binding, f.tokens.aRead, 'redeem', { promise: taskId });
      expect([binding.name, errorOf(reply)]).toEqual([binding.name, 'promise_not_found']);
    }
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const hidden = await f.mcp(method, { taskId }, f.tokens.aRead);
      expect(hidden.error?.data?.reason).toBe(
        (await neverExisted(method, f.tokens.aRead)).error?.data?.reason,
      );
      expect(hidden.result).toBeUndefined();
    }
    expect((await f.mcp('tasks/get', { taskId }, f.tokens.a)).result).toMatchObject({ taskId });
  });
});
