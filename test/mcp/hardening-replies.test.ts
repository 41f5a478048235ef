/**
 * What the MCP binding says back under the attacks of issue 9, over Streamable HTTP on a real socket: an unknown
 * method or task echoed at most 128 characters long, and the elicitation fallback for clients that cannot be asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/node.js';
import { initialize, nextId, post, start, stateless } from './hardening.fixtures.js';

describe('an unknown method or task is named back at most 128 characters long', () => {
  let running: RunningServer;
  let url: string;
  beforeAll(async () => {
    ({ running, url } = await start({}, {}, false));
  });
  afterAll(() => running.close(1000));

  it('caps the method name in the message and in data, on both kinds of revision', async () => {
    const method = `x/${'m'.repeat(200_000)}`;
    const handshake = await post(
      url,
      { id: 1, method },
      { headers: { 'mcp-protocol-version': '2025-06-18' } },
    );
    // The stateless revision repeats the method in a header, which node:http bounds at 16 KiB.
    const short = `x/${'m'.repeat(10_000)}`;
    const bare = await stateless(url, short, {});
    for (const [r, sent] of [
      [handshake, method],
      [bare, short],
    ] as const) {
      expect(r.json.error.code).toBe(-32601);
      expect(JSON.stringify(r.json).length).toBeLessThan(600);
      expect(r.json.error.data.method).toBe(`${sent.slice(0, 128)}…`);
    }
    const taskId = 't'.repeat(10_000);
    const task = await stateless(url, 'tasks/get', { taskId }, { tasks: true });
    expect(task.json.error.code).toBe(-32602);
    expect(JSON.stringify(task.json).length).toBeLessThan(600);
  });
});

describe('the elicitation fallback for a client that cannot be asked (handshake revisions)', () => {
  let running: RunningServer;
  let url: string;
  beforeAll(async () => {
    ({ running, url } = await start({}, {}, false));
  });
  afterAll(() => running.close(1000));

  it('says how to answer, without double punctuation, and the retry it describes works', async () => {
    const session = (await initialize(url)).session!;
    const call = (params: Record<string, unknown>) =>
      post(url, { id: nextId(), method: 'tools/call', params }, { session });
    const first = (await call({ name: 'greet', arguments: {} })).json.result;
    const text: string = first.content[0].text;
    expect(text).toContain('Whom should I greet? ');
    expect(text).not.toContain('?.');
    expect(text).toContain('"elicitation"');
    const { state } = first._meta['mcplite/elicitation'];
    const second = (
      await call({ name: 'greet', arguments: {}, elicitation: { state, answers: { name: 'Ada' } } })
    ).json.result;
    expect(second.content[0].text).toBe('Hello, Ada!');
    const forged = (
      await call({ name: 'greet', arguments: {}, elicitation: { state: `${state}x`, answers: {} } })
    ).json;
    expect(forged.error.code).toBe(-32602);
    const wrong = (await call({ name: 'greet', arguments: {}, elicitation: 'yes' })).json;
    expect(wrong.error.code).toBe(-32602);
  });
});
