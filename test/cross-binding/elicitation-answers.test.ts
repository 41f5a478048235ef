/**
 * Attacks on elicitation answers, kept as tests over every wire (issue 9): an answer may carry only the keys the
 * requested schema names (an unrequested `email` used to replace the checked one and skip its format check), and
 * the signed state's MAC must be its one canonical base64url text (no padding, no junk, no standard alphabet).
 * The demo's subscribe_digest over MCP-lite HTTP, MCP-lite gRPC and /mcp (stateless 2026-07-28 over plain HTTP,
 * and a handshake revision with the official SDK client answering elicitation/create).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { jsonToStruct, makeClient, structToJson, toolRequest, unary } from '../support/grpc-client.js';
import { callMessage, rpc } from '../support/mcp-lite-http.js';

let running: RunningServer;
let base: string;

beforeAll(async () => {
  running = await serve(createServer({ tools, ...serverOptions }), { port: 0, grpcPort: 0 });
  base = `${running.url}/mcp-lite/v1/calltools`;
});
afterAll(() => running.close(1000));

/** The first round: category and a valid email given, so only the frequency is asked for. */
const FIRST_ARGS = { category: 'security', email: 'ada@example.com' };
/** The attack: the requested frequency plus an email nobody asked for, and not an email at all. */
const SMUGGLED = { frequency: 'weekly', email: 'not an email' };

async function httpElicitation() {
  const first = await rpc(base, callMessage(1, 'subscribe_digest', FIRST_ARGS));
  expect(first.result!.elicitation.requested_schema.required).toEqual(['frequency']);
  return first.result!.elicitation.state as string;
}

const answerOverHttp = (state: string, answers: Record<string, unknown>) =>
  rpc(base, callMessage(2, 'subscribe_digest', FIRST_ARGS, { elicitation: { state, answers } }));

describe('MCP-lite HTTP', () => {
  it('refuses an answer with an unrequested key (-32602 naming it)', async () => {
    const state = await httpElicitation();
    const answered = await answerOverHttp(state, SMUGGLED);
    expect(answered.error?.code).toBe(-32602);
    expect(JSON.stringify(answered.error?.data)).toContain('email');
    // The honest answer still works, with the email from the first round.
    const honest = await answerOverHttp(state, { frequency: 'weekly' });
    expect(honest.result!.content).toMatchObject({ subscribed: true, email: 'ada@example.com' });
  });

  it('refuses the signed state with its MAC padded, extended or in the standard alphabet', async () => {
    const state = await httpElicitation();
    const [body, mac] = state.split('.') as [string, string];
    const standard = Buffer.from(mac, 'base64url').toString('base64').replace(/=+$/, '');
    const variants = [`${mac}=`, `${mac}==`, `${mac}.`, `${mac}!!`, `${mac}AA`];
    // The standard alphabet differs only when the MAC holds a '-' or '_'; make sure one variant does.
    if (standard !== mac) variants.push(standard);
    for (const bad of variants) {
      const answered = await answerOverHttp(`${body}.${bad}`, { frequency: 'weekly' });
      expect(answered.error?.code, bad).toBe(-32602);
      expect(answered.error?.data.reason, bad).toBe('forged');
    }
    expect((await answerOverHttp(state, { frequency: 'weekly' })).result!.content.subscribed).toBe(true);
  });
});

describe('MCP-lite gRPC', () => {
  it('refuses an answer with an unrequested key with INVALID_ARGUMENT', async () => {
    const client = makeClient(running.grpc!.address, 'full');
    try {
      const first = await unary(client, 'CallTool', toolRequest('subscribe_digest', FIRST_ARGS));
      const { state } = structToJson(first.response.result).elicitation as { state: string };
      const answer = (answers: Record<string, unknown>) =>
        unary(
          client,
          'CallTool',
          toolRequest('subscribe_digest', FIRST_ARGS, {
            elicitation: { state, answers: jsonToStruct(answers) },
          }),
        );
      const smuggled = await answer(SMUGGLED);
      expect(smuggled.error?.code).toBe(3); // INVALID_ARGUMENT
      expect(smuggled.error?.details).toContain('email');
      const honest = await answer({ frequency: 'daily' });
      expect(structToJson(honest.response.result).content).toMatchObject({ email: 'ada@example.com' });
    } finally {
      client.close();
    }
  });
});

describe('/mcp', () => {
  it('2026-07-28: refuses inputResponses with an unrequested key (-32602)', async () => {
    const call = async (params: Record<string, unknown>) => {
      const res = await fetch(`${running.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'subscribe_digest',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'subscribe_digest',
            ...params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
            },
          },
        }),
      });
      return (await res.json()) as { result?: any; error?: { code: number; data?: any } };
    };
    const first = (await call({ arguments: FIRST_ARGS })).result;
    expect(first.resultType).toBe('input_required');
    const [key] = Object.keys(first.inputRequests);
    const retry = (content: Record<string, unknown>) =>
      call({
        arguments: FIRST_ARGS,
        requestState: first.requestState,
        inputResponses: { [key!]: { action: 'accept', content } },
      });
    const smuggled = await retry(SMUGGLED);
    expect(smuggled.error?.code).toBe(-32602);
    expect(JSON.stringify(smuggled.error?.data)).toContain('email');
    // A second, unrequested input response is refused too, rather than ignored.
    const extra = await call({
      arguments: FIRST_ARGS,
      requestState: first.requestState,
      inputResponses: {
        [key!]: { action: 'accept', content: { frequency: 'weekly' } },
        other: { action: 'accept', content: { email: 'x' } },
      },
    });
    expect(extra.error?.code).toBe(-32602);
    const honest = await retry({ frequency: 'weekly' });
    expect(honest.result.resultType).toBe('complete');
    expect(honest.result.structuredContent).toMatchObject({ email: 'ada@example.com' });
  });

  it('handshake revision: an elicitation/create answer with an unrequested key does not run the tool', async () => {
    const client = new Client({ name: 'smuggler', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: SMUGGLED }));
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
    try {
      const outcome = await client.callTool({ name: 'subscribe_digest', arguments: FIRST_ARGS }).then(
        (result) => ({ result: result as any, error: undefined }),
        (error: { code?: number; message: string }) => ({ result: undefined, error }),
      );
      // Never a subscription for the smuggled address: either the call's -32602, or a tool error saying why.
      if (outcome.error) expect(outcome.error.code).toBe(-32602);
      else {
        expect(outcome.result.isError).toBe(true);
        expect(JSON.stringify(outcome.result.content)).toMatch(/email/);
      }
      expect(JSON.stringify(outcome)).not.toContain('You will receive');
    } finally {
      await client.close();
    }
  });
});
