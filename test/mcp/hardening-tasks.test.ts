/**
 * The task attacks of issue 9 on the MCP binding over Streamable HTTP, kept as tests on a real socket: task
 * origins kept forever (1 MiB of arguments per task), task floods past the per-caller bound, and task ownership.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/node.js';
import { heapMiB, MiB, start, stateless } from './hardening.fixtures.js';

describe('task origins are bounded, owned and freed with their task', () => {
  let running: RunningServer;
  let url: string;
  beforeAll(async () => {
    ({ running, url } = await start({ maxTasksPerCaller: 2 }, { promiseTtlMs: 400 }));
  });
  afterAll(() => running.close(100));

  it('does not keep 1 MiB of arguments per task', async () => {
    const { running: r2, url: u2 } = await start({ maxTasksPerCaller: 1000 }, {}, false);
    try {
      await stateless(u2, 'tools/call', { name: 'quick_task', arguments: {} }, { tasks: true });
      const before = heapMiB();
      const ids: string[] = [];
      for (let i = 0; i < 16; i++) {
        const args = { pad: MiB };
        const r = await stateless(u2, 'tools/call', { name: 'quick_task', arguments: args }, { tasks: true });
        expect(r.json.result.resultType).toBe('task');
        ids.push(r.json.result.taskId);
      }
      // The work is over (and its arguments with it): only what the binding keeps for each task remains.
      for (const taskId of ids) {
        let status = '';
        while (status !== 'completed') {
          status = (await stateless(u2, 'tasks/get', { taskId }, { tasks: true })).json.result.status;
        }
      }
      expect(heapMiB() - before).toBeLessThan(12);
    } finally {
      await r2.close(0);
    }
  });

  it("refuses a caller's task past its bound (-32004 / 429) and keeps its tasks; another caller is not affected", async () => {
    const t1 = (await stateless(url, 'tools/call', { name: 'slow_task' }, { token: 'a', tasks: true })).json
      .result;
    const t2 = (await stateless(url, 'tools/call', { name: 'slow_task' }, { token: 'a', tasks: true })).json
      .result;
    const refused = await stateless(url, 'tools/call', { name: 'slow_task' }, { token: 'a', tasks: true });
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe(-32004);
    for (const t of [t1, t2]) {
      const got = await stateless(url, 'tasks/get', { taskId: t.taskId }, { token: 'a', tasks: true });
      expect(got.json.result.status).toBe('working');
    }
    const other = await stateless(url, 'tools/call', { name: 'slow_task' }, { token: 'b', tasks: true });
    expect(other.json.result.resultType).toBe('task');
    // The tasks expire with their promises (400 ms), and their places with them.
    await new Promise((r) => setTimeout(r, 600));
    const again = await stateless(url, 'tools/call', { name: 'slow_task' }, { token: 'a', tasks: true });
    expect(again.json.result.resultType).toBe('task');
  });

  it('keeps a task to its principal: token B cannot get, cancel or update what token A made', async () => {
    const { taskId } = (
      await stateless(url, 'tools/call', { name: 'slow_task' }, { token: 'c', tasks: true })
    ).json.result;
    for (const [method, extra] of [
      ['tasks/get', {}],
      ['tasks/cancel', {}],
      ['tasks/update', { inputResponses: {} }],
    ] as const) {
      const r = await stateless(url, method, { taskId, ...extra }, { token: 'b', tasks: true });
      expect(r.json.error.code).toBe(-32602);
      expect(r.json.error.message).toMatch(/Unknown task/);
    }
    const mine = await stateless(url, 'tasks/get', { taskId }, { token: 'c', tasks: true });
    expect(mine.json.result.status).toBe('working');
  });
});
