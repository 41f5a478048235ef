/**
 * The MCP-lite gRPC binding over a real port: the mapping of errors to gRPC statuses (spec 5.5) with their rich
 * details, deadlines, and the limits and bearer authentication of a guarded server.
 */
import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GrpcListening, listenGrpc } from '../../src/bindings/grpc/index.js';
import { GRPC_STATUS } from '../../src/bindings/grpc/wire.js';
import { bearerAuth } from '../../src/core/auth.js';
import { ERROR_CODES, McpLiteError } from '../../src/core/errors.js';
import type { ToolServer } from '../../src/core/server.js';
import { createServer } from '../../src/create-server.js';
import {
  bearer,
  errorDetails,
  type McpLiteClient,
  makeClient,
  readStream,
  structToJson,
  toolRequest,
  unary,
} from '../support/grpc-client.js';
import { aborted, expectStatus, logged, tools, useGrpcBinding } from './grpc-binding.fixtures.js';

const live = useGrpcBinding();

describe('status mapping (spec 5.5)', () => {
  it('INVALID_ARGUMENT: a missing required field, with field violations in the details', async () => {
    const { error } = await unary(live.spec, 'CallTool', toolRequest('echo', { repeat: 2 }));
    const e = expectStatus(error, status.INVALID_ARGUMENT);
    const details = errorDetails(e)!;
    expect(details.errorInfo).toMatchObject({ reason: 'INVALID_PARAMS', domain: 'mcplite' });
    expect(details.badRequest?.field_violations[0]?.field).toMatch(/message/);
  });

  it('INVALID_ARGUMENT: arguments missing altogether, wrong types, unknown fields, a missing name', async () => {
    expectStatus((await unary(live.spec, 'CallTool', { name: 'echo' })).error, status.INVALID_ARGUMENT);
    expectStatus(
      (await unary(live.spec, 'CallTool', toolRequest('echo', { message: 42 }))).error,
      status.INVALID_ARGUMENT,
    );
    expectStatus(
      (await unary(live.spec, 'CallTool', toolRequest('echo', { message: ['a'], repeat: 'x' }))).error,
      status.INVALID_ARGUMENT,
    );
    expectStatus(
      (await unary(live.spec, 'CallTool', toolRequest('echo', { message: 'a', extra: true }))).error,
      status.INVALID_ARGUMENT,
    );
    // A Struct number is a double: 1.5 is not an integer.
    expectStatus(
      (await unary(live.spec, 'CallTool', toolRequest('echo', { message: 'a', repeat: 1.5 }))).error,
      status.INVALID_ARGUMENT,
    );
    expectStatus(
      (await unary(live.spec, 'CallTool', toolRequest('', { message: 'a' }))).error,
      status.INVALID_ARGUMENT,
    );
  });

  it('NOT_FOUND: an unknown tool, with the available tools and a suggestion in the details (spec A.5)', async () => {
    const { error } = await unary(live.spec, 'CallTool', toolRequest('ecko', { message: 'hi' }));
    const e = expectStatus(error, status.NOT_FOUND);
    expect(e.details).toBe("Tool not found: ecko. Did you mean 'echo'?");
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
    const call = live.spec.CallToolStream(toolRequest('wait', { key: 'deadline' }), new Metadata(), {
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
    const { error } = await unary(live.spec, 'CallTool', toolRequest('wait', { key: 'deadline-unary' }), {
      deadlineMs: 200,
    });
    expectStatus(error, status.DEADLINE_EXCEEDED);
    await expect.poll(() => aborted.get('deadline-unary')).toBeInstanceOf(McpLiteError);
  });

  it('DEADLINE_EXCEEDED: a tool that reports its own timeout', async () => {
    const { error } = await unary(live.spec, 'CallTool', toolRequest('deadline', {}));
    expect(expectStatus(error, status.DEADLINE_EXCEEDED).details).toBe('The upstream timed out');
  });

  it('INTERNAL: a throwing handler leaks nothing; the cause goes to the log', async () => {
    logged.length = 0;
    const { error } = await unary(live.spec, 'CallTool', toolRequest('boom', {}));
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
        live.spec.makeUnaryRequest(
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
    const streamed = live.spec.makeServerStreamRequest(
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
      live.spec.makeUnaryRequest(
        '/mcplite.MCPLite/GetResources',
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
