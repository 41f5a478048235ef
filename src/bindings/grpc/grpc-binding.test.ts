/**
 * The MCP-lite gRPC binding over a real port, driven by a client built at run time from the spec's section 5
 * proto (and from proto/mcplite.proto for the extensions), independent of the server's code.
 */
import { once } from 'node:events';
import { connect as http2Connect } from 'node:http2';
import { createRequire } from 'node:module';
import { connect as netConnect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { credentials, loadPackageDefinition, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  errorDetails,
  jsonToStruct,
  type McpLiteClient,
  makeClient,
  readStream,
  specProtoPath,
  structToJson,
  toolRequest,
  unary,
} from '../../../test/support/grpc-client.js';
import { bearerAuth } from '../../core/auth.js';
import { ERROR_CODES, McpLiteError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { elicit, failure, needMoreResource } from '../../core/outcomes.js';
import type { ToolServer } from '../../core/server.js';
import type { ToolDefinition } from '../../core/tool.js';
import { createServer } from '../../create-server.js';
import { serve } from '../../serve.js';
import { type GrpcListening, listenGrpc } from './index.js';
import { fromStruct, toStruct } from './struct.js';
import { GRPC_STATUS } from './wire.js';

/** Where the handlers report how they ended, so tests can see that an abort reached them. */
const aborted = new Map<string, unknown>();
/** How many partials the backpressure handler has managed to emit so far. */
let emitted = 0;

function waitForAbort(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

const tools: ToolDefinition[] = [
  {
    name: 'echo',
    '@type': 'query',
    title: 'Echo',
    description: 'Echoes the message',
    inputSchema: {
      type: 'object',
      required: ['message'],
      properties: { message: { type: 'string' }, repeat: { type: 'integer', minimum: 1, maximum: 10 } },
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { echo: { type: 'string' } } },
    annotations: { readOnlyHint: true },
    handler: (args: { message: string; repeat?: number }) => ({
      echo: args.message.repeat(args.repeat ?? 1),
    }),
  },
  { name: 'list', handler: () => [1, 'two', { three: 3 }, null, [true]] },
  { name: 'text', handler: () => 'just a string' },
  { name: 'nothing', handler: () => undefined },
  {
    name: 'fail',
    handler: () => failure('The warehouse is closed', { code: 'CLOSED', details: { reopens: '09:00' } }),
  },
  {
    name: 'ask',
    handler: (_args, ctx) => {
      if (!ctx.elicitation) {
        return elicit({
          message: 'Which colour?',
          schema: { type: 'object', required: ['colour'], properties: { colour: { type: 'string' } } },
          context: { step: 1 },
        });
      }
      return { colour: ctx.elicitation.answers.colour, context: ctx.elicitation.context };
    },
  },
  {
    name: 'more',
    handler: () =>
      needMoreResource({
        resource: 'time',
        requested: 60_000,
        granted: 1000,
        unit: 'ms',
        message: 'Needs a minute',
      }),
  },
  {
    name: 'slow',
    longRunning: { estimatedMs: 50 },
    handler: async () => {
      await new Promise((r) => setTimeout(r, 20));
      return { finished: true };
    },
  },
  {
    name: 'boom',
    handler: () => {
      throw new Error('secret at /etc/shadow password=hunter2');
    },
  },
  {
    name: 'deadline',
    handler: () => {
      throw new McpLiteError('deadline_exceeded', 'The upstream timed out');
    },
  },
  {
    name: 'report',
    handler: async function* () {
      yield 'Quarterly Report';
      yield { section: 2, text: 'Revenue' };
      return { pages: 2 };
    },
  },
  {
    name: 'report_fail',
    handler: async (_args, ctx) => {
      await ctx.partial('first');
      return failure('Ran out of paper');
    },
  },
  {
    name: 'report_boom',
    handler: async (_args, ctx) => {
      await ctx.partial('first');
      throw new Error('disk on fire at /var/secret');
    },
  },
  {
    name: 'wait',
    inputSchema: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } },
    handler: async (args: { key: string }, ctx) => {
      await ctx.partial('started');
      aborted.set(args.key, await waitForAbort(ctx.signal));
      return 'too late';
    },
  },
  {
    name: 'flood',
    inputSchema: { type: 'object', properties: { count: { type: 'integer' }, size: { type: 'integer' } } },
    handler: async (args: { count?: number; size?: number }, ctx) => {
      const chunk = 'x'.repeat(args.size ?? 1024);
      for (let i = 0; i < (args.count ?? 2000); i++) {
        if (ctx.signal.aborted) return 'stopped';
        await ctx.partial({ i, chunk });
        emitted = i + 1;
      }
      return { sent: args.count ?? 2000 };
    },
  },
  {
    name: 'whoami',
    handler: (_args, ctx) => ({ principal: ctx.principal?.id ?? null }),
  },
  {
    name: 'weird',
    handler: () => ({
      when: new Date(0),
      nan: Number.NaN,
      gone: undefined,
      list: [undefined, 1],
      nested: { deep: { deeper: [{}] } },
    }),
  },
];

const logged: Array<{ obj: unknown; msg?: string }> = [];
const captureLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (obj, msg) => logged.push({ obj, msg }),
  child: () => captureLogger,
};

let server: ToolServer;
let grpc: GrpcListening;
let spec: McpLiteClient;
let full: McpLiteClient;

beforeAll(async () => {
  server = createServer({ tools, version: '1.2.3', logger: captureLogger });
  grpc = await listenGrpc(server, { port: 0 });
  spec = makeClient(grpc.address, 'spec');
  full = makeClient(grpc.address, 'full');
});

afterAll(async () => {
  spec?.close();
  full?.close();
  await grpc?.close(1000);
  await server?.close();
});

function expectStatus(error: ServiceError | undefined, code: status): ServiceError {
  expect(error, 'expected an error status').toBeDefined();
  expect(status[error!.code]).toBe(status[code]);
  return error!;
}

describe('GetTools', () => {
  it('lists every tool with its schema as a Struct, the redeem tool included (spec client)', async () => {
    const { response, error } = await unary(spec, 'GetTools', {});
    expect(error).toBeUndefined();
    const byName = new Map<string, any>(response.tools.map((t: any) => [t.name, t]));
    const redeem = byName.get('redeem');
    expect(redeem.type).toBe('system');
    expect(redeem.description).toMatch(/promise/i);
    const redeemSchema = structToJson(redeem.input_schema);
    expect(redeemSchema.required).toEqual(['promise']);
    expect((redeemSchema.properties as any).promise.type).toBe('string');
    const echo = byName.get('echo');
    expect(echo.type).toBe('query');
    expect(structToJson(echo.input_schema)).toEqual({
      type: 'object',
      required: ['message'],
      properties: { message: { type: 'string' }, repeat: { type: 'integer', minimum: 1, maximum: 10 } },
      additionalProperties: false,
    });
    expect(byName.get('list').type).toBe('');
    expect(structToJson(byName.get('list').input_schema)).toEqual({ type: 'object' });
  });

  it('carries title, output schema and annotations as extensions (full client)', async () => {
    const { response } = await unary(full, 'GetTools', {});
    const echo = response.tools.find((t: any) => t.name === 'echo');
    expect(echo.title).toBe('Echo');
    expect(structToJson(echo.output_schema)).toEqual({
      type: 'object',
      properties: { echo: { type: 'string' } },
    });
    expect(structToJson(echo.annotations)).toEqual({ readOnlyHint: true });
  });
});

describe('CallTool outcomes', () => {
  it('answer: content in result, ANSWER meta with an epoch-ms timestamp (spec A.2)', async () => {
    const before = Date.now();
    const { response, error } = await unary(
      spec,
      'CallTool',
      toolRequest('echo', { message: 'hi', repeat: 2 }),
    );
    expect(error).toBeUndefined();
    expect(structToJson(response.result)).toEqual({ content: { echo: 'hihi' } });
    expect(response.meta.response_type).toBe('ANSWER');
    expect(response.meta.promise_token).toBe('');
    const ts = Number(response.meta.timestamp);
    expect(ts).toBeGreaterThanOrEqual(before - 1000);
    expect(ts).toBeLessThanOrEqual(Date.now() + 1000);
    expect(response.meta.processing_time_ms).toBeGreaterThanOrEqual(0);
  });

  it('answer: server_version in meta, partial unset (full client)', async () => {
    const { response } = await unary(full, 'CallTool', toolRequest('echo', { message: 'hi' }));
    expect(response.meta.server_version).toBe('1.2.3');
    expect(response.partial).toBe(false);
  });

  it('non-object answers live under content: arrays, strings, null', async () => {
    const list = await unary(spec, 'CallTool', toolRequest('list'));
    expect(structToJson(list.response.result)).toEqual({ content: [1, 'two', { three: 3 }, null, [true]] });
    const text = await unary(spec, 'CallTool', toolRequest('text', {}));
    expect(structToJson(text.response.result)).toEqual({ content: 'just a string' });
    const nothing = await unary(spec, 'CallTool', toolRequest('nothing', {}));
    expect(structToJson(nothing.response.result)).toEqual({ content: null });
  });

  it('answers read as JSON would: toJSON, non-finite numbers, undefined', async () => {
    const { response } = await unary(spec, 'CallTool', toolRequest('weird', {}));
    expect(structToJson(response.result)).toEqual({
      content: JSON.parse(
        JSON.stringify({
          when: new Date(0),
          nan: Number.NaN,
          list: [undefined, 1],
          nested: { deep: { deeper: [{}] } },
        }),
      ),
    });
  });

  it('failure: FAILURE with the explanation in result.failure', async () => {
    const { response } = await unary(spec, 'CallTool', toolRequest('fail', {}));
    expect(response.meta.response_type).toBe('FAILURE');
    expect(structToJson(response.result)).toEqual({
      failure: { message: 'The warehouse is closed', code: 'CLOSED', details: { reopens: '09:00' } },
    });
  });

  it('promise, then redeem through CallTool with the name "redeem" (spec A.3)', async () => {
    const first = await unary(spec, 'CallTool', toolRequest('slow', {}));
    expect(first.response.meta.response_type).toBe('PROMISE');
    expect(first.response.meta.promise_token).toMatch(/\S{20,}/);
    expect(structToJson(first.response.result)).toEqual({});
    const token = first.response.meta.promise_token;
    const redeemed = await unary(spec, 'CallTool', toolRequest('redeem', { promise: token, wait_ms: 5000 }));
    expect(redeemed.error).toBeUndefined();
    expect(redeemed.response.meta.response_type).toBe('ANSWER');
    expect(structToJson(redeemed.response.result)).toEqual({ content: { finished: true } });
  });

  it('promise: estimated_completion in meta (full client)', async () => {
    const { response } = await unary(full, 'CallTool', toolRequest('slow', {}));
    expect(response.meta.response_type).toBe('PROMISE');
    expect(Number(response.meta.estimated_completion)).toBeGreaterThanOrEqual(
      Number(response.meta.timestamp),
    );
    const cancelled = await unary(
      full,
      'CallTool',
      toolRequest('cancel', { promise: response.meta.promise_token }),
    );
    expect(cancelled.error).toBeUndefined();
    expect(structToJson(cancelled.response.result).content).toMatchObject({
      promise: response.meta.promise_token,
    });
  });

  it('redeem: unknown token is NOT_FOUND, malformed token INVALID_ARGUMENT', async () => {
    const unknown = await unary(
      spec,
      'CallTool',
      toolRequest('redeem', { promise: `prom_${'A'.repeat(32)}` }),
    );
    const e = expectStatus(unknown.error, status.NOT_FOUND);
    expect(errorDetails(e)?.errorInfo?.reason).toBe('PROMISE_NOT_FOUND');
    const malformed = await unary(spec, 'CallTool', toolRequest('redeem', { promise: 'nope' }));
    expectStatus(malformed.error, status.INVALID_ARGUMENT);
  });

  it('elicitation: ELICITATION with message, schema and state; answered through ToolRequest.elicitation', async () => {
    const asked = await unary(spec, 'CallTool', toolRequest('ask', {}));
    expect(asked.response.meta.response_type).toBe('ELICITATION');
    const { elicitation } = structToJson(asked.response.result) as any;
    expect(elicitation.message).toBe('Which colour?');
    expect(elicitation.requested_schema).toMatchObject({ type: 'object', required: ['colour'] });
    expect(typeof elicitation.state).toBe('string');

    const answered = await unary(
      full,
      'CallTool',
      toolRequest(
        'ask',
        {},
        { elicitation: { state: elicitation.state, answers: jsonToStruct({ colour: 'teal' }) } },
      ),
    );
    expect(answered.error).toBeUndefined();
    expect(answered.response.meta.response_type).toBe('ANSWER');
    expect(structToJson(answered.response.result)).toEqual({
      content: { colour: 'teal', context: { step: 1 } },
    });

    const wrong = await unary(
      full,
      'CallTool',
      toolRequest(
        'ask',
        {},
        { elicitation: { state: elicitation.state, answers: jsonToStruct({ colour: 7 }) } },
      ),
    );
    expectStatus(wrong.error, status.INVALID_ARGUMENT);
    const forged = await unary(
      full,
      'CallTool',
      toolRequest(
        'ask',
        {},
        { elicitation: { state: `${elicitation.state}x`, answers: jsonToStruct({ colour: 'red' }) } },
      ),
    );
    expectStatus(forged.error, status.INVALID_ARGUMENT);
  });

  it('request-for-more-resource: enum value 4 for a spec client, a name for the full one', async () => {
    const asSpec = await unary(spec, 'CallTool', toolRequest('more', {}));
    expect(asSpec.response.meta.response_type).toBe(4);
    const asFull = await unary(full, 'CallTool', toolRequest('more', {}));
    expect(asFull.response.meta.response_type).toBe('REQUEST_FOR_MORE_RESOURCE');
    expect(structToJson(asFull.response.result)).toEqual({
      resource_request: {
        resource: 'time',
        requested: 60_000,
        granted: 1000,
        unit: 'ms',
        message: 'Needs a minute',
      },
    });
  });
});

describe('CallToolStream', () => {
  it('sends partials, then a final message carrying the complete meta (spec A.4)', async () => {
    const { messages, error } = await readStream(spec, toolRequest('report', {}));
    expect(error).toBeUndefined();
    expect(messages).toHaveLength(3);
    expect(messages.slice(0, 2).map((m) => structToJson(m.result))).toEqual([
      { partial: 'Quarterly Report' },
      { partial: { section: 2, text: 'Revenue' } },
    ]);
    for (const m of messages.slice(0, 2)) expect(m.meta).toBeNull();
    const last = messages[2];
    expect(structToJson(last.result)).toEqual({ content: { pages: 2 } });
    expect(last.meta.response_type).toBe('ANSWER');
    expect(Number(last.meta.timestamp)).toBeGreaterThan(0);
  });

  it('marks partials with the partial flag (full client)', async () => {
    const { messages } = await readStream(full, toolRequest('report', {}));
    expect(messages.map((m) => m.partial)).toEqual([true, true, false]);
    expect(messages[2].meta.server_version).toBe('1.2.3');
  });

  it('a non-streaming tool answers with one final message', async () => {
    const { messages } = await readStream(spec, toolRequest('echo', { message: 'one' }));
    expect(messages).toHaveLength(1);
    expect(structToJson(messages[0].result)).toEqual({ content: { echo: 'one' } });
    expect(messages[0].meta.response_type).toBe('ANSWER');
  });

  it('ends with FAILURE as its final message when the tool fails after partials', async () => {
    const { messages, error } = await readStream(spec, toolRequest('report_fail', {}));
    expect(error).toBeUndefined();
    expect(messages.map((m) => m.meta?.response_type ?? null)).toEqual([null, 'FAILURE']);
  });

  it('ends with INTERNAL (no leaked detail) when the handler throws after partials', async () => {
    const { messages, error } = await readStream(spec, toolRequest('report_boom', {}));
    expect(messages).toHaveLength(1);
    const e = expectStatus(error, status.INTERNAL);
    expect(e.details).toBe('Internal error');
    expect(JSON.stringify(errorDetails(e))).not.toMatch(/secret|disk/);
  });

  it('protocol errors end the stream with their status before any message', async () => {
    const { messages, error } = await readStream(spec, toolRequest('nope', {}));
    expect(messages).toHaveLength(0);
    expectStatus(error, status.NOT_FOUND);
  });

  it('honours backpressure: a client that stops reading stops the handler, which resumes with it', async () => {
    emitted = 0;
    const count = 3000;
    const call = full.CallToolStream(toolRequest('flood', { count, size: 4096 }));
    let received = 0;
    let last: any;
    call.on('data', (m: any) => {
      received++;
      last = m;
      if (received === 1) call.pause();
    });
    const ended = once(call, 'end');
    // Wait until the handler is stuck: its count stops moving while the client reads nothing.
    let previous = -1;
    while (emitted !== previous) {
      previous = emitted;
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(received).toBe(1);
    // ~12 MiB in all; a stalled handler has handed over what flow-control windows and buffers hold (~50 here).
    expect(emitted).toBeLessThan(1000);
    call.resume();
    await ended;
    expect(received).toBe(count + 1);
    expect(structToJson(last.result)).toEqual({ content: { sent: count } });
  });

  it('a cancelled call aborts the handler', async () => {
    const call = spec.CallToolStream(toolRequest('wait', { key: 'cancel-stream' }));
    const errored = new Promise<ServiceError>((resolve) => call.on('error', resolve));
    call.on('data', () => call.cancel());
    expect((await errored).code).toBe(status.CANCELLED);
    await expect.poll(() => aborted.get('cancel-stream')).toBeInstanceOf(McpLiteError);
    expect((aborted.get('cancel-stream') as McpLiteError).code).toBe('cancelled');
  });

  it('a client that vanishes mid-stream (connection dropped) aborts the handler', async () => {
    const definition = loadSync(specProtoPath(), { keepCase: true }) as any;
    const body: Buffer = definition['mcplite.ToolRequest'].serialize({
      name: 'wait',
      arguments: { fields: { key: { stringValue: 'vanish' } } },
    });
    const frame = Buffer.alloc(5 + body.length);
    frame.writeUInt32BE(body.length, 1);
    body.copy(frame, 5);
    // A socket of our own, so that the client can vanish without a goodbye (no RST_STREAM, no GOAWAY).
    let socket: Socket | undefined;
    const session = http2Connect(`http://${grpc.address}`, {
      createConnection: () => {
        socket = netConnect(grpc.port, '127.0.0.1');
        return socket;
      },
    });
    session.on('error', () => {});
    const req = session.request({
      ':method': 'POST',
      ':path': '/mcplite.MCPLite/CallToolStream',
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    req.on('error', () => {});
    req.end(frame);
    await once(req, 'data');
    socket!.destroy();
    await expect.poll(() => aborted.get('vanish')).toBeInstanceOf(McpLiteError);
    expect((aborted.get('vanish') as McpLiteError).code).toBe('cancelled');
    // The server is none the worse for it.
    expect(
      (await unary(spec, 'CallTool', toolRequest('echo', { message: 'still here' }))).error,
    ).toBeUndefined();
  });
});

describe('status mapping (spec 5.5)', () => {
  it('INVALID_ARGUMENT: a missing required field, with field violations in the details', async () => {
    const { error } = await unary(spec, 'CallTool', toolRequest('echo', { repeat: 2 }));
    const e = expectStatus(error, status.INVALID_ARGUMENT);
    const details = errorDetails(e)!;
    expect(details.errorInfo).toMatchObject({ reason: 'INVALID_PARAMS', domain: 'mcplite' });
    expect(details.badRequest?.field_violations[0]?.field).toMatch(/message/);
  });

  it('INVALID_ARGUMENT: arguments missing altogether, wrong types, unknown fields, a missing name', async () => {
    expectStatus((await unary(spec, 'CallTool', { name: 'echo' })).error, status.INVALID_ARGUMENT);
    expectStatus(
      (await unary(spec, 'CallTool', toolRequest('echo', { message: 42 }))).error,
      status.INVALID_ARGUMENT,
    );
    expectStatus(
      (await unary(spec, 'CallTool', toolRequest('echo', { message: ['a'], repeat: 'x' }))).error,
      status.INVALID_ARGUMENT,
    );
    expectStatus(
      (await unary(spec, 'CallTool', toolRequest('echo', { message: 'a', extra: true }))).error,
      status.INVALID_ARGUMENT,
    );
    // A Struct number is a double: 1.5 is not an integer.
    expectStatus(
      (await unary(spec, 'CallTool', toolRequest('echo', { message: 'a', repeat: 1.5 }))).error,
      status.INVALID_ARGUMENT,
    );
    expectStatus(
      (await unary(spec, 'CallTool', toolRequest('', { message: 'a' }))).error,
      status.INVALID_ARGUMENT,
    );
  });

  it('NOT_FOUND: an unknown tool, with the available tools and a suggestion in the details (spec A.5)', async () => {
    const { error } = await unary(spec, 'CallTool', toolRequest('ecko', { message: 'hi' }));
    const e = expectStatus(error, status.NOT_FOUND);
    expect(e.details).toBe('Tool not found: ecko');
    const info = errorDetails(e)!.errorInfo!;
    expect(info.reason).toBe('TOOL_NOT_FOUND');
    expect(info.metadata.requested_tool).toBe('ecko');
    expect(JSON.parse(info.metadata.available_tools!)).toEqual(
      expect.arrayContaining(['redeem', 'echo', 'list']),
    );
    expect(info.metadata.suggestion).toBe("Did you mean 'echo'?");
  });

  it("DEADLINE_EXCEEDED: the client's deadline is honoured and aborts the handler", async () => {
    const started = Date.now();
    const call = spec.CallToolStream(toolRequest('wait', { key: 'deadline' }), new Metadata(), {
      deadline: Date.now() + 300,
    });
    const error = await new Promise<ServiceError>((resolve) => call.on('error', resolve));
    call.on('data', () => {});
    expectStatus(error, status.DEADLINE_EXCEEDED);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await expect.poll(() => aborted.get('deadline')).toBeInstanceOf(McpLiteError);
    expect((aborted.get('deadline') as McpLiteError).code).toBe('deadline_exceeded');
  });

  it('DEADLINE_EXCEEDED: on a unary call too', async () => {
    const { error } = await unary(spec, 'CallTool', toolRequest('wait', { key: 'deadline-unary' }), {
      deadlineMs: 200,
    });
    expectStatus(error, status.DEADLINE_EXCEEDED);
    await expect.poll(() => aborted.get('deadline-unary')).toBeInstanceOf(McpLiteError);
  });

  it('DEADLINE_EXCEEDED: a tool that reports its own timeout', async () => {
    const { error } = await unary(spec, 'CallTool', toolRequest('deadline', {}));
    expect(expectStatus(error, status.DEADLINE_EXCEEDED).details).toBe('The upstream timed out');
  });

  it('INTERNAL: a throwing handler leaks nothing; the cause goes to the log', async () => {
    logged.length = 0;
    const { error } = await unary(spec, 'CallTool', toolRequest('boom', {}));
    const e = expectStatus(error, status.INTERNAL);
    expect(e.details).toBe('Internal error');
    const everything = JSON.stringify({
      details: e.details,
      metadata: e.metadata.toJSON(),
      rich: errorDetails(e),
    });
    expect(everything).not.toMatch(/secret|shadow|hunter2/);
    expect(JSON.stringify(logged.map((l) => String((l.obj as any)?.err?.message)))).toMatch(/hunter2/);
  });

  it('INVALID_ARGUMENT, not INTERNAL: bytes that are not a ToolRequest', async () => {
    // Field 2 (arguments) announces 5 bytes and brings 1.
    const truncated = Buffer.from([0x0a, 0x04, 0x65, 0x63, 0x68, 0x6f, 0x12, 0x05, 0x0a]);
    for (const method of ['CallTool', 'GetTools']) {
      const error = await new Promise<ServiceError | null>((resolve) =>
        spec.makeUnaryRequest(
          `/mcplite.MCPLite/${method}`,
          (x: Buffer) => x,
          (x: Buffer) => x,
          truncated,
          (err: ServiceError | null) => resolve(err),
        ),
      );
      expect(expectStatus(error ?? undefined, status.INVALID_ARGUMENT).details).toMatch(
        /not a valid mcplite\./,
      );
    }
    const streamed = spec.makeServerStreamRequest(
      '/mcplite.MCPLite/CallToolStream',
      (x: Buffer) => x,
      (x: Buffer) => x,
      truncated,
    );
    const error = await new Promise<ServiceError>((resolve) => streamed.on('error', resolve));
    expectStatus(error, status.INVALID_ARGUMENT);
  });

  it('UNIMPLEMENTED: a method the service does not have', async () => {
    const error = await new Promise<ServiceError | null>((resolve) =>
      spec.makeUnaryRequest(
        '/mcplite.MCPLite/GetPrompts',
        (x: Buffer) => x,
        (x: Buffer) => x,
        Buffer.alloc(0),
        (err: ServiceError | null) => resolve(err),
      ),
    );
    expectStatus(error ?? undefined, status.UNIMPLEMENTED);
  });

  it('the status table maps every core error code', () => {
    for (const code of ERROR_CODES) expect(GRPC_STATUS[code]).toBeTypeOf('number');
    expect(GRPC_STATUS.tool_not_found).toBe(status.NOT_FOUND);
    expect(GRPC_STATUS.invalid_params).toBe(status.INVALID_ARGUMENT);
    expect(GRPC_STATUS.deadline_exceeded).toBe(status.DEADLINE_EXCEEDED);
    expect(GRPC_STATUS.internal).toBe(status.INTERNAL);
    expect(GRPC_STATUS.unauthenticated).toBe(status.UNAUTHENTICATED);
    expect(GRPC_STATUS.payload_too_large).toBe(status.RESOURCE_EXHAUSTED);
  });
});

describe('limits and auth', () => {
  let guarded: ToolServer;
  let listening: GrpcListening;
  let client: McpLiteClient;

  beforeAll(async () => {
    guarded = createServer({ tools, authenticate: bearerAuth(['s3cret']) });
    listening = await listenGrpc(guarded, { port: 0, maxMessageBytes: 64 * 1024 });
    client = makeClient(listening.address, 'spec');
  });

  afterAll(async () => {
    client?.close();
    await listening?.close(1000);
    await guarded?.close();
  });

  it('UNAUTHENTICATED without a valid bearer token, on every method', async () => {
    expectStatus((await unary(client, 'GetTools', {})).error, status.UNAUTHENTICATED);
    expectStatus((await unary(client, 'CallTool', toolRequest('whoami', {}))).error, status.UNAUTHENTICATED);
    expectStatus(
      (await unary(client, 'CallTool', toolRequest('whoami', {}), { metadata: bearer('wrong') })).error,
      status.UNAUTHENTICATED,
    );
    const streamed = await readStream(client, toolRequest('report', {}));
    expectStatus(streamed.error, status.UNAUTHENTICATED);
    expect(streamed.messages).toHaveLength(0);
  });

  it('with the token the call goes through and the handler sees the principal', async () => {
    expect((await unary(client, 'GetTools', {}, { metadata: bearer('s3cret') })).error).toBeUndefined();
    const { response } = await unary(client, 'CallTool', toolRequest('whoami', {}), {
      metadata: bearer('s3cret'),
    });
    expect(structToJson(response.result)).toEqual({ content: { principal: 'bearer-0' } });
  });

  it('RESOURCE_EXHAUSTED: a message over the limit; the server keeps serving', async () => {
    const big = toolRequest('echo', { message: 'x'.repeat(100 * 1024) });
    expectStatus(
      (await unary(client, 'CallTool', big, { metadata: bearer('s3cret') })).error,
      status.RESOURCE_EXHAUSTED,
    );
    const small = await unary(client, 'CallTool', toolRequest('echo', { message: 'ok' }), {
      metadata: bearer('s3cret'),
    });
    expect(structToJson(small.response.result)).toEqual({ content: { echo: 'ok' } });
  });

  it('RESOURCE_EXHAUSTED: a reply over the limit is refused, not sent', async () => {
    const { error } = await unary(
      client,
      'CallTool',
      toolRequest('echo', { message: 'y'.repeat(20_000), repeat: 5 }),
      {
        metadata: bearer('s3cret'),
      },
    );
    expectStatus(error, status.RESOURCE_EXHAUSTED);
  });
});

describe('discovery: reflection and health', () => {
  it('server reflection lists mcplite.MCPLite and serves its descriptor', async () => {
    const require = createRequire(import.meta.url);
    const reflectionRoot = join(dirname(require.resolve('@grpc/reflection')), '../proto');
    const def = loadSync(join(reflectionRoot, 'grpc/reflection/v1/reflection.proto'), {
      keepCase: true,
      oneofs: true,
    });
    const pkg = loadPackageDefinition(def) as any;
    const client = new pkg.grpc.reflection.v1.ServerReflection(grpc.address, credentials.createInsecure());
    const call = client.ServerReflectionInfo();
    const replies: any[] = [];
    call.on('data', (r: any) => replies.push(r));
    const ended = once(call, 'end');
    call.write({ list_services: '*' });
    call.write({ file_containing_symbol: 'mcplite.MCPLite' });
    call.end();
    await ended;
    client.close();
    const services = replies[0].list_services_response.service.map((s: any) => s.name);
    expect(services).toEqual(expect.arrayContaining(['mcplite.MCPLite', 'grpc.health.v1.Health']));
    const files: Buffer[] = replies[1].file_descriptor_response.file_descriptor_proto;
    expect(files.length).toBeGreaterThan(0);
    expect(Buffer.concat(files).toString('latin1')).toContain('CallToolStream');
  });

  it('the standard health service answers SERVING for the server and for mcplite.MCPLite', async () => {
    const def = loadSync(healthProtoPath, { keepCase: true, enums: String });
    const pkg = loadPackageDefinition(def) as any;
    const client = new pkg.grpc.health.v1.Health(grpc.address, credentials.createInsecure());
    for (const service of ['', 'mcplite.MCPLite']) {
      const reply = await new Promise<any>((resolve, reject) =>
        client.Check({ service }, (err: Error | null, r: any) => (err ? reject(err) : resolve(r))),
      );
      expect(reply.status).toBe('SERVING');
    }
    client.close();
  });
});

describe('serve() with grpcPort', () => {
  it('serves HTTP and gRPC together and closes both', async () => {
    const both = createServer({ tools });
    const running = await serve(both, { port: 0, grpcPort: 0 });
    try {
      expect(running.grpc?.port).toBeGreaterThan(0);
      const client = makeClient(running.grpc!.address, 'spec');
      const viaGrpc = await unary(client, 'CallTool', toolRequest('echo', { message: 'g' }));
      expect(structToJson(viaGrpc.response.result)).toEqual({ content: { echo: 'g' } });
      client.close();
      const res = await fetch(`${running.url}/mcp-lite/v1/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'echo', arguments: { message: 'h' } },
        }),
      });
      expect(((await res.json()) as any).result.content).toEqual({ echo: 'h' });
    } finally {
      await running.close(1000);
    }
    const after = makeClient(running.grpc!.address, 'spec');
    const { error } = await unary(after, 'GetTools', {}, { deadlineMs: 2000 });
    expect(error?.code).toBe(status.UNAVAILABLE);
    after.close();
  });

  it('serves no gRPC unless asked', async () => {
    const plain = createServer({ tools });
    const running = await serve(plain, { port: 0 });
    expect(running.grpc).toBeUndefined();
    await running.close(1000);
  });
});

describe('struct conversion', () => {
  it('round-trips JSON objects: nesting, lists, null, booleans, numbers, a "__proto__" key', () => {
    const value = {
      a: 1,
      b: -2.5,
      c: 'x',
      d: true,
      e: null,
      f: [1, [2, { g: [] }], null],
      h: { i: { j: {} } },
    };
    expect(fromStruct(toStruct(value))).toEqual(value);
    // JSON.parse makes "__proto__" an own key; an object literal would set the prototype instead.
    const proto = fromStruct({
      fields: JSON.parse('{"__proto__":{"stringValue":"p","kind":"stringValue"}}'),
    });
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(['__proto__']);
  });

  it('reads Values without the oneof "kind" and in snake_case', () => {
    expect(fromStruct({ fields: { a: { numberValue: 3 }, b: { string_value: 's' } as any, c: {} } })).toEqual(
      {
        a: 3,
        b: 's',
        c: null,
      },
    );
  });
});
