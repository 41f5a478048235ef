/**
 * The tasks extension (io.modelcontextprotocol/tasks) on its own, through the engine: a promise becomes a task for
 * a client that declared the extension (with the server's promise TTL), tasks/get follows it to completion,
 * tasks/cancel stops it, and a client without the extension is refused clearly.
 */
import { describe, expect, it } from 'vitest';
import type { McpLiteError } from '../../core/errors.js';
import { createServer } from '../../create-server.js';
import type { JsonRpcRequest } from '../common/jsonrpc.js';
import type { Exchange } from './exchange.js';
import { McpEngine } from './methods.js';
import { STATELESS_REVISION } from './revisions.js';
import { TASKS_EXTENSION, taskRegistryFor } from './tasks.js';
import { toMcpError } from './wire.js';

let release: () => void = () => {};

function setup(promiseTtlMs = 120_000) {
  const server = createServer({
    promiseTtlMs,
    mcpInlineWaitMs: 0,
    tools: [
      {
        name: 'job',
        longRunning: { estimatedMs: 1_000 },
        handler: () =>
          new Promise((resolve) => {
            release = () => resolve({ done: true });
          }),
      },
      { name: 'quick', handler: () => 'now' },
    ],
  });
  const engine = new McpEngine(
    server,
    { tasksRequired: ['quick'] },
    taskRegistryFor(server, { tasksRequired: ['quick'] }),
  );
  return { server, engine };
}

function exchange(withExtension: boolean): Exchange {
  return {
    revision: STATELESS_REVISION,
    stateless: true,
    clientCapabilities: withExtension ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
    logLevel: undefined,
    session: undefined,
    principal: undefined,
    remoteAddress: undefined,
    signal: new AbortController().signal,
    canNotify: false,
    notify: async () => {},
    request: undefined,
    finish: () => {},
  };
}

const rq = (method: string, params: Record<string, unknown>): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id: 1,
  method,
  params,
});

describe('the tasks extension', () => {
  it('turns a promise into a task whose ttlMs is the promise TTL, and tasks/get follows it to completion', async () => {
    const { engine } = setup(90_000);
    const created = await engine.handle(rq('tools/call', { name: 'job', arguments: {} }), exchange(true));
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 90_000 });
    const taskId = created.taskId as string;
    const working = await engine.handle(rq('tasks/get', { taskId }), exchange(true));
    expect(working).toMatchObject({ taskId, status: 'working', ttlMs: 90_000 });
    release();
    let done: Record<string, unknown> = working;
    for (let i = 0; i < 100 && done.status === 'working'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      done = await engine.handle(rq('tasks/get', { taskId }), exchange(true));
    }
    expect(done).toMatchObject({ status: 'completed', result: { structuredContent: { done: true } } });
  });

  it('cancels a task with tasks/cancel', async () => {
    const { engine } = setup();
    const created = await engine.handle(rq('tools/call', { name: 'job', arguments: {} }), exchange(true));
    const taskId = created.taskId as string;
    expect(await engine.handle(rq('tasks/cancel', { taskId }), exchange(true))).toMatchObject({});
    expect(await engine.handle(rq('tasks/get', { taskId }), exchange(true))).toMatchObject({
      status: 'cancelled',
    });
  });

  it('answers a client without the extension with the redeem text, and refuses it the tasks methods', async () => {
    const { engine } = setup();
    const plain = await engine.handle(rq('tools/call', { name: 'job', arguments: {} }), exchange(false));
    expect(plain.resultType).toBe('complete');
    expect(JSON.stringify(plain.content)).toContain('redeem');
    await expect(engine.handle(rq('tasks/get', { taskId: 'x' }), exchange(false))).rejects.toMatchObject({
      code: 'missing_capability',
    });
    expect(() => engine.handle(rq('tools/call', { name: 'quick' }), exchange(false))).toThrow(
      expect.objectContaining({ code: 'missing_capability' }),
    );
  });

  it('refuses a task id it does not know, and one that is not a string', async () => {
    const { engine } = setup();
    // Its own code, which MCP answers as invalid params (-32602), data.reason as before.
    let unknown: McpLiteError | undefined;
    try {
      await engine.handle(rq('tasks/get', { taskId: 'nope' }), exchange(true));
    } catch (err) {
      unknown = err as McpLiteError;
    }
    expect(unknown).toMatchObject({ code: 'task_not_found', data: { reason: 'task_not_found' } });
    expect(toMcpError(unknown as McpLiteError, false)).toMatchObject({
      code: -32602,
      data: { reason: 'task_not_found' },
    });
    await expect(engine.handle(rq('tasks/get', { taskId: 7 }), exchange(true))).rejects.toMatchObject({
      code: 'invalid_params',
    });
  });
});
