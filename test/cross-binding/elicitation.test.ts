/**
 * Cross-binding cases: elicitation: one request answered (and a refused and a forged answer), a
 * multi-request elicitation answered in two rounds, a decline and a cancel reaching the handler, and an answer
 * refused for other arguments and a second time. Each case runs over every binding, which must all give its
 * expected transcript (the harness and the adapters: test/support/cross-binding.ts). MCP's own ways to decline,
 * `elicitation/create` (handshake revisions, the official SDK client) and `input_required` (2026-07-28, and its
 * tasks), are below the cases.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectOptions, connect } from '../../src/client/index.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import {
  answer,
  type Case,
  COLOUR_SCHEMA,
  describeCases,
  META,
  SIZE_SCHEMA,
  tools,
} from '../support/cross-binding.js';

const CASES: Case[] = [
  {
    name: 'elicitation, then the answer',
    async run(s) {
      const asked = await s.call('ask', {});
      expect(asked.state).toBeTypeOf('string');
      const answered = await s.call('ask', {}, { state: asked.state, answers: { size: 'M' } });
      const refused = await s.call('ask', {}, { state: asked.state, answers: { size: 'XXL' } });
      const forged = await s.call('ask', {}, { state: `${asked.state}x`, answers: { size: 'S' } });
      return [asked.reply, answered.reply, refused.reply, forged.reply];
    },
    expected: [
      {
        kind: 'result',
        response_type: 'elicitation',
        fields: {
          elicitation: {
            message: 'Which size?',
            requested_schema: {
              type: 'object',
              required: ['size'],
              properties: { size: { type: 'string', enum: ['S', 'M', 'L'] } },
            },
            state: '<state>',
          },
        },
        meta: META,
      },
      answer({ size: 'M', step: 1 }),
      { kind: 'error', class: 'invalid_params', detail: { fields: ['size'] } },
      { kind: 'error', class: 'invalid_params', detail: {} },
    ],
  },
  {
    name: 'multi-request elicitation: partial answer, the rest asked again, then the answer',
    async run(s) {
      const asked = await s.call('ask_two', {});
      const partial = await s.call('ask_two', {}, { state: asked.state, answers: { size: { size: 'M' } } });
      const done = await s.call(
        'ask_two',
        {},
        { state: partial.state, answers: { colour: { colour: 'red' } } },
      );
      const refused = await s.call('ask_two', {}, { state: asked.state, answers: { size: { size: 'XXL' } } });
      return [asked.reply, partial.reply, done.reply, refused.reply];
    },
    expected: [
      {
        kind: 'result',
        response_type: 'elicitation',
        fields: {
          elicitation: {
            message: 'Which size? Which colour?',
            requested_schema: { type: 'object', properties: { size: SIZE_SCHEMA, colour: COLOUR_SCHEMA } },
            state: '<state>',
            requests: {
              size: { message: 'Which size?', requested_schema: SIZE_SCHEMA },
              colour: { message: 'Which colour?', requested_schema: COLOUR_SCHEMA },
            },
          },
        },
        meta: META,
      },
      {
        kind: 'result',
        response_type: 'elicitation',
        fields: {
          elicitation: {
            message: 'Which colour?',
            requested_schema: { type: 'object', properties: { colour: COLOUR_SCHEMA } },
            state: '<state>',
            requests: { colour: { message: 'Which colour?', requested_schema: COLOUR_SCHEMA } },
          },
        },
        meta: META,
      },
      answer({ size: { size: 'M' }, colour: { colour: 'red' } }),
      { kind: 'error', class: 'invalid_params', detail: { fields: ['size.size'] } },
    ],
  },
  {
    // Issue 22, item 3: the handler gets the decline (and the cancel) and answers as it likes.
    name: 'a decline and a cancel reach the handler, which answers as it likes',
    async run(s) {
      const asked = await s.call('delete_note', { id: 'n9' });
      const declined = await s.call('delete_note', { id: 'n9' }, { state: asked.state, action: 'decline' });
      const again = await s.call('delete_note', { id: 'n9' });
      const cancelled = await s.call('delete_note', { id: 'n9' }, { state: again.state, action: 'cancel' });
      return [declined.reply, cancelled.reply];
    },
    expected: [answer({ kept: 'n9', action: 'decline' }), answer({ kept: 'n9', action: 'cancel' })],
  },
  {
    // A handler that reads the answers without looking at the action did not handle the decline: the call
    // ends as declined, as it always did.
    name: 'a handler that ignores the decline ends as declined',
    async run(s) {
      const asked = await s.call('ask', {});
      return (await s.call('ask', {}, { state: asked.state, action: 'decline' })).reply;
    },
    expected: {
      kind: 'result',
      response_type: 'failure',
      fields: { failure: { message: 'The user did not provide the input (decline).', code: 'declined' } },
      meta: META,
    },
  },
  {
    // Issue 22, item 2: a state answers the call it was made for (tool, arguments, caller), and only once.
    name: 'an answer is refused for other arguments and a second time',
    async run(s) {
      const asked = await s.call('delete_note', { id: 'n9' });
      const yes = { state: asked.state, answers: {} };
      const otherArgs = await s.call('delete_note', { id: 'n10' }, yes);
      const answered = await s.call('delete_note', { id: 'n9' }, yes);
      const replayed = await s.call('delete_note', { id: 'n9' }, yes);
      return [otherArgs.reply, answered.reply, replayed.reply];
    },
    expected: [
      { kind: 'error', class: 'invalid_params', detail: {} },
      answer({ deleted: 'n9' }),
      { kind: 'error', class: 'invalid_params', detail: {} },
    ],
  },
];

describeCases(CASES);

describe('a decline reaches the handler over MCP elicitation/create and input_required', () => {
  let running: RunningServer;
  let url: string;

  beforeAll(async () => {
    running = await serve(createServer({ tools }), { port: 0, grpcPort: 0 });
    url = `${running.url}/mcp`;
  });
  afterAll(() => running.close(1000));

  for (const action of ['decline', 'cancel'] as const) {
    it(`handshake revision (official SDK client): ${action} runs the handler again`, async () => {
      const client = new Client(
        { name: 'decliner', version: '1.0.0' },
        { capabilities: { elicitation: {} } },
      );
      const asked: string[] = [];
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params.message);
        return { action };
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const result = await client.callTool({ name: 'delete_note', arguments: { id: 'n9' } });
        expect(asked).toEqual(['Delete note n9?']);
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual({ kept: 'n9', action });
        // A handler that ignores the decline ends as declined, a tool error as before.
        const ignored = (await client.callTool({ name: 'ask', arguments: {} })) as {
          isError?: boolean;
          content: Array<{ text: string }>;
        };
        expect(ignored.isError).toBe(true);
        expect(ignored.content[0]!.text).toContain(`(${action})`);
      } finally {
        await client.close();
      }
    });
  }

  async function stateless(params: Record<string, unknown>, method = 'tools/call', tasks = false) {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        'mcp-name': String(params.name ?? params.taskId),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {
              elicitation: {},
              ...(tasks ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {}),
            },
          },
        },
      }),
    });
    return (await res.json()) as { result?: any; error?: { code: number; data?: any } };
  }

  it('2026-07-28: a declined input response runs the handler again', async () => {
    const first = (await stateless({ name: 'delete_note', arguments: { id: 'n9' } })).result;
    expect(first.resultType).toBe('input_required');
    const [key] = Object.keys(first.inputRequests);
    const declined = await stateless({
      name: 'delete_note',
      arguments: { id: 'n9' },
      requestState: first.requestState,
      inputResponses: { [key!]: { action: 'decline' } },
    });
    expect(declined.error).toBeUndefined();
    expect(declined.result.resultType).toBe('complete');
    expect(declined.result.structuredContent).toEqual({ kept: 'n9', action: 'decline' });
  });

  const clientTargets: Array<[string, () => string, ConnectOptions?]> = [
    ['MCP-lite HTTP', () => `${running.url}/mcp-lite/v1/`],
    ['gRPC', () => `grpc://127.0.0.1:${running.grpc!.port}`],
    ['Webtools', () => `${running.url}/webtools/mcplite/`],
    ['MCP 2026-07-28', () => url],
    ['MCP handshake', () => url, { mcpRevision: 'handshake' }],
  ];
  for (const [name, target, options] of clientTargets) {
    it(`the mcplite client's decline() over ${name} reaches the handler`, async () => {
      const client = await connect(target(), options);
      try {
        const asked = await client.call('delete_note', { id: 'n9' });
        expect(asked.type).toBe('elicitation');
        if (asked.type !== 'elicitation') return;
        expect(await asked.decline()).toMatchObject({
          type: 'answer',
          value: { kept: 'n9', action: 'decline' },
        });
      } finally {
        await client.close();
      }
    });
  }
});
