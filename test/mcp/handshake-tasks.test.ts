/**
 * The 2025-11-25 revision's experimental tasks through the official SDK 1.32 client
 * (`client.experimental.tasks.callToolStream` with a task): the call gets a real task at once, `tasks/get` follows
 * it, and `tasks/result` gives the tool's result once the work (ended by the test, never by a sleep) is done. A tool
 * that answers at once is a task too (the client asked for one), and a task is unknown to another principal. The
 * listing says which tools may run as tasks (`execution.taskSupport`), so that `callToolStream` asks for one by
 * itself, and `tasks/list` shows a caller its own tasks alone, in pages, under the per-caller bound.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuth, createServer, MemoryPromiseStore } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

/** Opened by the test to end the long-running work (whether or not the handler has started yet). */
let release!: () => void;
const released = new Promise<void>((resolve) => {
  release = resolve;
});
let running: RunningServer;
/** Two tasks a page, at most three live tasks a caller. */
let small: RunningServer;
/** `audit` runs only as a task; one live task a caller. */
let strict: RunningServer;
/** How many times `audit`'s handler has run. */
let audits = 0;

beforeAll(async () => {
  small = await serve(
    createServer({
      promiseStore: new MemoryPromiseStore(),
      authenticate: bearerAuth(['alice', 'bob']),
      tools: [{ name: 'quick', description: 'Answers at once', handler: () => 'now' }],
    }),
    { port: 0, mcp: { pageSize: 2, maxTasksPerCaller: 3 } },
  );
  strict = await serve(
    createServer({
      promiseStore: new MemoryPromiseStore(),
      authenticate: bearerAuth(['alice', 'bob']),
      tools: [
        { name: 'audit', description: 'Counts its runs', handler: () => ({ run: ++audits }) },
        { name: 'quick', description: 'Answers at once', handler: () => 'now' },
      ],
    }),
    { port: 0, mcp: { tasksRequired: ['audit'], maxTasksPerCaller: 1 } },
  );
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
afterAll(() => Promise.all([running.close(1000), small.close(1000), strict.close(1000)]));

async function sdk(token: string, at = running): Promise<Client> {
  const client = new Client({ name: 'tasks-2025', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${at.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** Runs callToolStream with a task to its end: the messages' types, the task id and the final result. */
async function streamed(client: Client, name: string, onCreated?: () => void, asTask = true) {
  const types: string[] = [];
  let taskId: string | undefined;
  let result: any;
  const stream = client.experimental.tasks.callToolStream(
    { name, arguments: {} },
    CallToolResultSchema,
    asTask ? { task: { ttl: 60_000 } } : {},
  );
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

  it('lists the tools that may run as tasks, so that callToolStream asks for one by itself', async () => {
    const client = await sdk('alice', small);
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'quick')?.execution).toEqual({ taskSupport: 'optional' });
      expect(tools.find((t) => t.name === 'redeem')?.execution).toBeUndefined();
      // No task option given: the SDK asks for a task because the listing says the tool takes one.
      const run = await streamed(client, 'quick', undefined, false);
      expect(run.types[0]).toBe('taskCreated');
      expect(run.result.structuredContent).toEqual({ result: 'now' });
      // The ordinary callTool still answers in the call.
      const plain = await client.callTool({ name: 'quick', arguments: {} });
      expect(plain.structuredContent).toEqual({ result: 'now' });
    } finally {
      await client.close();
    }
  });
});

describe('tasks/list (2025-11-25)', () => {
  it("shows a caller its own tasks alone, in pages, and refuses a task past the caller's bound", async () => {
    const alice = await sdk('alice', small);
    const bob = await sdk('bob', small);
    try {
      expect(alice.getServerCapabilities()?.tasks).toMatchObject({ list: {} });
      const made: string[] = [];
      // 'lists the tools…' above left alice one live task already: two more reach her bound of three.
      const before = await alice.experimental.tasks.listTasks();
      made.push(...before.tasks.map((t) => t.taskId));
      while (made.length < 3) made.push((await streamed(alice, 'quick')).taskId!);
      const bobs = (await streamed(bob, 'quick')).taskId!;

      const first = await alice.experimental.tasks.listTasks();
      expect(first.tasks).toHaveLength(2);
      expect(first.nextCursor).toBeTypeOf('string');
      const second = await alice.experimental.tasks.listTasks(first.nextCursor);
      expect(second.nextCursor).toBeUndefined();
      const listed = [...first.tasks, ...second.tasks];
      expect(listed.map((t) => t.taskId).sort()).toEqual([...made].sort());
      expect(listed.every((t) => t.status === 'completed')).toBe(true);

      const theirs = await bob.experimental.tasks.listTasks();
      expect(theirs.tasks.map((t) => t.taskId)).toEqual([bobs]);

      // A fourth live task is past alice's bound: refused (resource_exhausted), bob unaffected.
      await expect(streamed(alice, 'quick')).rejects.toThrow(/Too many tasks for this caller/);
      await expect(alice.experimental.tasks.listTasks('not-a-cursor')).rejects.toThrow(/cursor/);
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });
});

describe('tasksRequired tools and the per-caller bound (2025-11-25)', () => {
  it('lists a task-required tool "required": only a task runs it', async () => {
    const client = await sdk('alice', strict);
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'audit')?.execution).toEqual({ taskSupport: 'required' });
      expect(tools.find((t) => t.name === 'quick')?.execution).toEqual({ taskSupport: 'optional' });
      // The SDK's callTool refuses the tool itself, having read the listing.
      await expect(client.callTool({ name: 'audit', arguments: {} })).rejects.toThrow(
        /requires task-based execution/,
      );
      // Sent anyway, without a task, the call is refused by the server (-32601), and nothing runs.
      const plain = client.request(
        { method: 'tools/call', params: { name: 'audit', arguments: {} } },
        CallToolResultSchema,
      );
      await expect(plain).rejects.toMatchObject({ code: -32601 });
      await expect(plain).rejects.toThrow(/requires task augmentation/);
      expect(audits).toBe(0);
      // callToolStream, given no task option, asks for one because the listing says the tool needs it.
      const run = await streamed(client, 'audit', undefined, false);
      expect(run.types[0]).toBe('taskCreated');
      expect(run.result.structuredContent).toEqual({ run: 1 });
    } finally {
      await client.close();
    }
  });

  it("refuses a task past the caller's bound before its work runs", async () => {
    const alice = await sdk('alice', strict);
    const bob = await sdk('bob', strict);
    try {
      // The test above left alice her one live task (completed, kept until it expires).
      expect((await alice.experimental.tasks.listTasks()).tasks).toHaveLength(1);
      const before = audits;
      await expect(streamed(alice, 'audit')).rejects.toThrow(/Too many tasks for this caller/);
      await expect(streamed(alice, 'quick')).rejects.toThrow(/Too many tasks for this caller/);
      expect(audits).toBe(before);
      // Another caller's bound is its own: bob's task runs.
      const run = await streamed(bob, 'audit');
      expect(run.result.structuredContent).toEqual({ run: before + 1 });
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });
});
