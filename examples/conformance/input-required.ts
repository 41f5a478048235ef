/**
 * Native MCP tools and prompts of the conformance fixture for the 2026-07-28 `input_required` flow (SEP-2322):
 * several input requests of different kinds (elicitation, sampling, roots) in one round, multi-round state.
 * Core's `elicit()` covers the single-form case portably; these exercise the wire directly. `requestState` is
 * HMAC-signed so that a tampered state is refused.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { McpNativeContext, McpNativePrompt, McpNativeTool } from '../../src/bindings/mcp/native.js';
import { McpLiteError } from '../../src/core/errors.js';

const KEY = randomBytes(32);
const EMPTY = { type: 'object', properties: {} };

function sign(payload: unknown): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${createHmac('sha256', KEY).update(body).digest('base64url')}`;
}

function verify(state: unknown): Record<string, unknown> {
  if (typeof state !== 'string')
    throw new McpLiteError('invalid_params', 'Invalid params: requestState is missing');
  const [body, mac] = state.split('.');
  const expected = createHmac('sha256', KEY)
    .update(body ?? '')
    .digest();
  const given = Buffer.from(mac ?? '', 'base64url');
  if (!body || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new McpLiteError('invalid_params', 'Invalid params: requestState failed its integrity check');
  }
  return JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
}

function elicitation(message: string, field: string, type = 'string') {
  return {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message,
      requestedSchema: { type: 'object', properties: { [field]: { type } }, required: [field] },
    },
  };
}

function sampling(text: string, maxTokens: number) {
  return {
    method: 'sampling/createMessage',
    params: { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens },
  };
}

const ROOTS = { method: 'roots/list', params: {} };

type Responses = Record<string, any>;

function responsesOf(params: Record<string, unknown>): Responses | undefined {
  const r = params.inputResponses;
  if (r === undefined) return undefined;
  if (typeof r !== 'object' || r === null || Array.isArray(r)) {
    throw new McpLiteError('invalid_params', 'Invalid params: inputResponses must be an object');
  }
  return r as Responses;
}

function requireCapability(ctx: McpNativeContext, ...names: string[]): void {
  const missing = names.filter((n) => typeof ctx.clientCapabilities[n] !== 'object');
  if (missing.length > 0) {
    throw new McpLiteError(
      'missing_capability',
      `Missing required client capability: ${missing.join(', ')}`,
      {
        requiredCapabilities: Object.fromEntries(missing.map((n) => [n, {}])),
      },
    );
  }
}

function text(t: string) {
  return { content: [{ type: 'text', text: t }] };
}

function inputRequired(inputRequests: Record<string, unknown>, state?: unknown) {
  return {
    resultType: 'input_required',
    inputRequests,
    ...(state !== undefined ? { requestState: sign(state) } : {}),
  };
}

/** An accepted elicitation's content, or undefined when the response is missing or not an acceptance. */
function accepted(r: unknown): Record<string, unknown> | undefined {
  const v = r as { action?: unknown; content?: unknown } | undefined;
  return v?.action === 'accept' && typeof v.content === 'object' && v.content !== null
    ? (v.content as Record<string, unknown>)
    : undefined;
}

function tool(name: string, description: string, handler: McpNativeTool['handler']): McpNativeTool {
  return { tool: { name, description, inputSchema: EMPTY }, handler };
}

/** The input_required tools. */
export const inputRequiredTools: McpNativeTool[] = [
  tool('test_input_required_result_elicitation', 'Asks for a name, then greets', (params, ctx) => {
    requireCapability(ctx, 'elicitation');
    const content = accepted(responsesOf(params)?.user_name);
    if (!content || typeof content.name !== 'string')
      return inputRequired({ user_name: elicitation('What is your name?', 'name') });
    return text(`Hello, ${content.name}!`);
  }),
  tool(
    'test_streaming_elicitation',
    'Asks for input with an InputRequiredResult (never a server request)',
    (params, ctx) => {
      requireCapability(ctx, 'elicitation');
      const content = accepted(responsesOf(params)?.answer);
      if (!content) return inputRequired({ answer: elicitation('What should I do?', 'answer') });
      return text(`Answer: ${String(content.answer)}`);
    },
  ),
  tool('test_input_required_result_sampling', 'Asks the client model a question', (params, ctx) => {
    requireCapability(ctx, 'sampling');
    const reply = responsesOf(params)?.capital_question;
    if (!reply) return inputRequired({ capital_question: sampling('What is the capital of France?', 100) });
    return text(`The model said: ${String(reply.content?.text ?? '')}`);
  }),
  tool('test_input_required_result_list_roots', 'Asks for the client roots', (params, ctx) => {
    requireCapability(ctx, 'roots');
    const reply = responsesOf(params)?.client_roots;
    if (!reply || !Array.isArray(reply.roots)) return inputRequired({ client_roots: ROOTS });
    return text(`Roots: ${reply.roots.map((r: { uri: string }) => r.uri).join(', ')}`);
  }),
  tool('test_input_required_result_request_state', 'Round-trips a signed requestState', (params, ctx) => {
    requireCapability(ctx, 'elicitation');
    const reply = responsesOf(params)?.confirm;
    if (!reply) {
      return inputRequired(
        { confirm: elicitation('Please confirm', 'ok', 'boolean') },
        { step: 'confirm', at: Date.now() },
      );
    }
    const state = verify(params.requestState);
    if (state.step !== 'confirm')
      throw new McpLiteError('invalid_params', 'Invalid params: requestState is for another step');
    return text(`state-ok: confirmed=${String(accepted(reply)?.ok)}`);
  }),
  tool(
    'test_input_required_result_multiple_inputs',
    'Asks for a name, a greeting and the roots at once',
    (params, ctx) => {
      requireCapability(ctx, 'elicitation', 'sampling', 'roots');
      const r = responsesOf(params);
      const requests = {
        user_name: elicitation('What is your name?', 'name'),
        greeting: sampling('Generate a greeting', 50),
        client_roots: ROOTS,
      };
      if (!r?.user_name || !r.greeting || !r.client_roots) return inputRequired(requests, { step: 'all' });
      verify(params.requestState);
      return text(
        `Name: ${String(accepted(r.user_name)?.name)}; greeting: ${String(r.greeting.content?.text)}; roots: ${(r.client_roots.roots ?? []).length}`,
      );
    },
  ),
  tool(
    'test_input_required_result_multi_round',
    'Two elicitation rounds with evolving state',
    (params, ctx) => {
      requireCapability(ctx, 'elicitation');
      const r = responsesOf(params);
      if (!r || params.requestState === undefined) {
        return inputRequired({ step1: elicitation('Step 1: What is your name?', 'name') }, { round: 1 });
      }
      const state = verify(params.requestState);
      if (state.round === 1) {
        const name = accepted(r.step1)?.name;
        if (typeof name !== 'string')
          return inputRequired({ step1: elicitation('Step 1: What is your name?', 'name') }, { round: 1 });
        return inputRequired(
          { step2: elicitation('Step 2: What is your favorite color?', 'color') },
          { round: 2, name },
        );
      }
      const color = accepted(r.step2)?.color;
      if (typeof color !== 'string') {
        return inputRequired({ step2: elicitation('Step 2: What is your favorite color?', 'color') }, state);
      }
      return text(`${String(state.name)} likes ${color}`);
    },
  ),
  tool('test_input_required_result_tampered_state', 'Refuses a tampered requestState', (params, ctx) => {
    requireCapability(ctx, 'elicitation');
    if (params.requestState === undefined) {
      return inputRequired(
        { confirm: elicitation('Please confirm', 'ok', 'boolean') },
        { step: 'tamper-check' },
      );
    }
    const state = verify(params.requestState);
    return text(`state-ok: ${String(state.step)}`);
  }),
  tool('test_input_required_result_capabilities', 'Only asks for what the client declared', (params, ctx) => {
    const caps = ctx.clientCapabilities;
    const r = responsesOf(params);
    if (r && Object.keys(r).length > 0) return text('Thanks for the input');
    const requests: Record<string, unknown> = {};
    if (typeof caps.elicitation === 'object') requests.user_name = elicitation('What is your name?', 'name');
    if (typeof caps.sampling === 'object') requests.greeting = sampling('Generate a greeting', 50);
    if (typeof caps.roots === 'object') requests.client_roots = ROOTS;
    if (Object.keys(requests).length === 0) return text('No input can be requested from this client');
    return inputRequired(requests);
  }),
];

/** The input_required prompt (InputRequiredResult is not only for tools). */
export const inputRequiredPrompts: McpNativePrompt[] = [
  {
    prompt: { name: 'test_input_required_result_prompt', description: 'Asks for context before rendering' },
    handler: (params, ctx) => {
      requireCapability(ctx, 'elicitation');
      const content = accepted(responsesOf(params)?.user_context);
      if (!content)
        return inputRequired({ user_context: elicitation('What context should the prompt use?', 'context') });
      return {
        messages: [
          { role: 'user', content: { type: 'text', text: `Use this context: ${String(content.context)}` } },
        ],
      };
    },
  },
];
