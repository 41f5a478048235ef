/**
 * Several inputs asked in one elicitation round (`elicit({ requests })`) on the MCP wire: `elicitation/create`
 * requests in turn on the handshake revisions (with the official SDK client), `input_required` with several
 * `inputRequests` answered in two rounds on 2026-07-28, and partial fulfilment through the tasks extension.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, defineTool, elicit } from '../../index.js';
import { type RunningServer, serve } from '../../node.js';

const TASKS = 'io.modelcontextprotocol/tasks';

const REQUESTS = {
  name: {
    message: 'What is your name?',
    schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
  confirm: {
    message: 'Go ahead?',
    schema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
  },
};

function greet(answers: Record<string, any>): string {
  return answers.confirm.confirm ? `Hello, ${answers.name.name}!` : `Not now, ${answers.name.name}.`;
}

const tools = [
  defineTool({
    name: 'two_questions',
    description: 'Asks for a name and a confirmation in one round',
    handler: (_args, ctx) =>
      ctx.elicitation ? greet(ctx.elicitation.answers) : elicit({ requests: REQUESTS }),
  }),
  defineTool({
    name: 'two_questions_task',
    description: 'The same, as long-running work (a task)',
    longRunning: { estimatedMs: 50 },
    handler: (_args, ctx) =>
      ctx.elicitation ? greet(ctx.elicitation.answers) : elicit({ requests: REQUESTS }),
  }),
];

let running: RunningServer;
let url: string;

beforeAll(async () => {
  running = await serve(createServer({ tools }), { port: 0 });
  url = `${running.url}/mcp`;
});
afterAll(() => running.close(1000));

describe('handshake revisions (official SDK client)', () => {
  async function connect(answer: (message: string) => Record<string, unknown>) {
    const asked: string[] = [];
    const client = new Client({ name: 'multi', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const message = request.params.message;
      asked.push(message);
      return answer(message) as any;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return { client, asked };
  }

  it('sends one elicitation/create per request in turn, then calls the tool once with all answers', async () => {
    const { client, asked } = await connect((message) => ({
      action: 'accept',
      content: message === REQUESTS.name.message ? { name: 'Ada' } : { confirm: true },
    }));
    try {
      const result = await client.callTool({ name: 'two_questions', arguments: {} });
      expect(asked).toEqual([REQUESTS.name.message, REQUESTS.confirm.message]);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ result: 'Hello, Ada!' });
    } finally {
      await client.close();
    }
  });

  it('stops at the first request the user declines', async () => {
    const { client, asked } = await connect(() => ({ action: 'decline' }));
    try {
      const result = (await client.callTool({ name: 'two_questions', arguments: {} })) as any;
      expect(asked).toEqual([REQUESTS.name.message]);
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toContain('decline');
    } finally {
      await client.close();
    }
  });
});

// ---- 2026-07-28, stateless ----

let nextId = 1;

async function rpc(method: string, params: Record<string, unknown>, extensions = false) {
  const name = method.startsWith('tasks/') ? params.taskId : params.name;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {
            elicitation: {},
            ...(extensions ? { extensions: { [TASKS]: {} } } : {}),
          },
        },
      },
    }),
  });
  return (await res.json()) as { result?: any; error?: { code: number; message: string; data?: any } };
}

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

describe('2026-07-28: input_required with several input requests', () => {
  it('asks both, takes a partial answer, asks for the rest, then completes', async () => {
    const first = (await rpc('tools/call', { name: 'two_questions', arguments: {} })).result;
    expect(first.resultType).toBe('input_required');
    expect(first.inputRequests).toEqual({
      name: {
        method: 'elicitation/create',
        params: { mode: 'form', message: REQUESTS.name.message, requestedSchema: REQUESTS.name.schema },
      },
      confirm: {
        method: 'elicitation/create',
        params: { mode: 'form', message: REQUESTS.confirm.message, requestedSchema: REQUESTS.confirm.schema },
      },
    });

    const second = (
      await rpc('tools/call', {
        name: 'two_questions',
        arguments: {},
        inputResponses: { name: accept({ name: 'Grace' }) },
        requestState: first.requestState,
      })
    ).result;
    expect(second.resultType).toBe('input_required');
    expect(Object.keys(second.inputRequests)).toEqual(['confirm']);
    expect(second.requestState).not.toBe(first.requestState);

    const third = (
      await rpc('tools/call', {
        name: 'two_questions',
        arguments: {},
        inputResponses: { confirm: accept({ confirm: false }) },
        requestState: second.requestState,
      })
    ).result;
    expect(third.resultType).toBe('complete');
    expect(third.content[0].text).toBe('Not now, Grace.');
  });

  it('refuses an invalid answer and a tampered requestState with -32602; a decline reaches the tool', async () => {
    const first = (await rpc('tools/call', { name: 'two_questions', arguments: {} })).result;
    const retry = (inputResponses: Record<string, unknown>, requestState = first.requestState) =>
      rpc('tools/call', { name: 'two_questions', arguments: {}, inputResponses, requestState });

    const invalid = await retry({ name: accept({ name: 42 }) });
    expect(invalid.error?.code).toBe(-32602);
    expect(invalid.error?.data.errors[0].field).toBe('name.name');

    // Issue 22: a decline is no longer a -32602; the tool runs with it, and this one (which reads the answers
    // without looking at the action) ends as declined.
    const declined = await retry({ name: { action: 'decline' } });
    expect(declined.error).toBeUndefined();
    expect(declined.result.isError).toBe(true);
    expect(declined.result.content[0].text).toContain('decline');

    const tampered = await retry({ name: accept({ name: 'Eve' }) }, `${first.requestState}x`);
    expect(tampered.error?.code).toBe(-32602);
    expect(tampered.error?.data.reason).toBe('forged');
  });
});

describe('2026-07-28 tasks: partial fulfilment through tasks/update', () => {
  async function waitForStatus(taskId: string, status: string) {
    for (let i = 0; i < 100; i++) {
      const task = (await rpc('tasks/get', { taskId }, true)).result;
      if (task.status === status) return task;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`task ${taskId} never reached ${status}`);
  }

  it('parks the task on both inputs, keeps it waiting on the unanswered one, then completes', async () => {
    const created = (await rpc('tools/call', { name: 'two_questions_task', arguments: {} }, true)).result;
    expect(created.resultType).toBe('task');
    const { taskId } = created;

    const waiting = await waitForStatus(taskId, 'input_required');
    expect(Object.keys(waiting.inputRequests)).toEqual(['name', 'confirm']);

    const ack = (
      await rpc('tasks/update', { taskId, inputResponses: { name: accept({ name: 'Lin' }) } }, true)
    ).result;
    expect(ack).toEqual({ resultType: 'complete' });
    const still = (await rpc('tasks/get', { taskId }, true)).result;
    expect(still.status).toBe('input_required');
    expect(Object.keys(still.inputRequests)).toEqual(['confirm']);

    await rpc('tasks/update', { taskId, inputResponses: { confirm: accept({ confirm: true }) } }, true);
    const done = await waitForStatus(taskId, 'completed');
    expect(done.result.content[0].text).toBe('Hello, Lin!');
  });

  it('ends the task as a tool error when the user declines a request', async () => {
    const { taskId } = (await rpc('tools/call', { name: 'two_questions_task', arguments: {} }, true)).result;
    await waitForStatus(taskId, 'input_required');
    await rpc('tasks/update', { taskId, inputResponses: { confirm: { action: 'decline' } } }, true);
    const done = await waitForStatus(taskId, 'completed');
    expect(done.result.isError).toBe(true);
    expect(done.result.content[0].text).toContain('decline');
  });
});
