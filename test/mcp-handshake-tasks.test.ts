/**
 * The 2025-11-25 revision's experimental tasks through the official SDK 1.32 client
 * (`client.experimental.tasks.callToolStream` with a task): the call gets a real task at once, `tasks/get` follows
 * it, and `tasks/result` gives the tool's result once the work (ended by the test, never by a sleep) is done. A tool
 * that answers at once is a task too (the client asked for one), and a task is unknown to another principal.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuth, createServer, MemoryPromiseStore } from '../src/index.js';
import { type RunningServer, serve } from '../src/node.js';

/** Opened by the test to end the long-running work (whether or not the handler has started yet). */
let release!: () => void;
const released = new Promise<void>((resolve) => {
  release = resolve;
});
let running: RunningServer;

beforeAll(async () => {
  const server = createServer({
    promiseStore: new MemoryPromiseStore(),
    authenticate: bearerAuth(['alice', 'bob']),
    tools: [
      {
        name: 'crunch',
        description: 'Long-running: ends when the test releases it',
        longRunning: { estimatedMs: 3000 },
        handler: async () => {
          await released;
          return { crunched: true };
        },
      },
      { name: 'quick', description: 'Answers at once', handler: () => 'now' },
    ],
  });
  running = await serve(server, { port: 0 });
});
afterAll(() => running.close(1000));

async function sdk(token: string): Promise<Client> {
  const client = new Client({ name: 'tasks-2025', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** Runs callToolStream with a task to its end: the messages' types, the task id and the final result. */
async function streamed(client: Client, name: string, onCreated?: () => void) {
  const types: string[] = [];
  let taskId: string | undefined;
  let result: any;
  const stream = client.experimental.tasks.callToolStream({ name, arguments: {} }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  });
  for await (const message of stream) {
    types.push(message.type);
    if (message.type === 'taskCreated') {
      taskId = message.task.taskId;
      onCreated?.();
    }
    if (message.type === 'result') result = message.result;
    if (message.type === 'error') throw message.error;
  }
  return { types, taskId, result };
}

describe('2025-11-25 experimental tasks through the official SDK client', () => {
  it('declares tasks for tools/call', async () => {
    const client = await sdk('alice');
    try {
      expect(client.getServerCapabilities()?.tasks).toMatchObject({ requests: { tools: { call: {} } } });
    } finally {
      await client.close();
    }
  });

  it('a long-running tool becomes a real task, followed to its result', async () => {
    const client = await sdk('alice');
    try {
      const run = await streamed(client, 'crunch', () => release());
      expect(run.types[0]).toBe('taskCreated');
      expect(run.types.at(-1)).toBe('result');
      expect(run.result.structuredContent).toEqual({ crunched: true });
      expect(run.result._meta['io.modelcontextprotocol/related-task']).toEqual({ taskId: run.taskId });
      const task = await client.experimental.tasks.getTask(run.taskId!);
      expect(task.status).toBe('completed');
    } finally {
      await client.close();
    }
  });

  it('a tool that answers at once is a task too, unknown to another principal', async () => {
    const alice = await sdk('alice');
    const bob = await sdk('bob');
    try {
      const run = await streamed(alice, 'quick');
      expect(run.types[0]).toBe('taskCreated');
      expect(run.result.structuredContent).toEqual({ result: 'now' });
      await expect(bob.experimental.tasks.getTask(run.taskId!)).rejects.toThrow(/Unknown task/);
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });
});
