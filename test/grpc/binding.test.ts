/**
 * The MCP-lite gRPC binding over a real port, driven by a client built at run time from the spec's section 5
 * proto (and from proto/mcplite.proto for the extensions), independent of the server's code: the unary methods,
 * GetTools and CallTool with every outcome. Siblings grpc-binding-*.test.ts cover streaming, statuses, discovery
 * and serve(), and Struct conversion.
 */
import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { errorDetails, jsonToStruct, structToJson, toolRequest, unary } from '../support/grpc-client.js';
import { expectStatus, useGrpcBinding } from './grpc-binding.fixtures.js';

const live = useGrpcBinding();

describe('GetTools', () => {
  it('lists every tool with its schema as a Struct, the redeem tool included (spec client)', async () => {
    const { response, error } = await unary(live.spec, 'GetTools', {});
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
    const { response } = await unary(live.full, 'GetTools', {});
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
      live.spec,
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
    const { response } = await unary(live.full, 'CallTool', toolRequest('echo', { message: 'hi' }));
    expect(response.meta.server_version).toBe('1.2.3');
    expect(response.partial).toBe(false);
  });

  it('non-object answers live under content: arrays, strings, null', async () => {
    const list = await unary(live.spec, 'CallTool', toolRequest('list'));
    expect(structToJson(list.response.result)).toEqual({ content: [1, 'two', { three: 3 }, null, [true]] });
    const text = await unary(live.spec, 'CallTool', toolRequest('text', {}));
    expect(structToJson(text.response.result)).toEqual({ content: 'just a string' });
    const nothing = await unary(live.spec, 'CallTool', toolRequest('nothing', {}));
    expect(structToJson(nothing.response.result)).toEqual({ content: null });
  });

  it('answers read as JSON would: toJSON, non-finite numbers, undefined', async () => {
    const { response } = await unary(live.spec, 'CallTool', toolRequest('weird', {}));
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
    const { response } = await unary(live.spec, 'CallTool', toolRequest('fail', {}));
    expect(response.meta.response_type).toBe('FAILURE');
    expect(structToJson(response.result)).toEqual({
      failure: { message: 'The warehouse is closed', code: 'CLOSED', details: { reopens: '09:00' } },
    });
  });

  it('promise, then redeem through CallTool with the name "redeem" (spec A.3)', async () => {
    const first = await unary(live.spec, 'CallTool', toolRequest('slow', {}));
    expect(first.response.meta.response_type).toBe('PROMISE');
    expect(first.response.meta.promise_token).toMatch(/\S{20,}/);
    expect(structToJson(first.response.result)).toEqual({});
    const token = first.response.meta.promise_token;
    const redeemed = await unary(
      live.spec,
      'CallTool',
      toolRequest('redeem', { promise: token, wait_ms: 5000 }),
    );
    expect(redeemed.error).toBeUndefined();
    expect(redeemed.response.meta.response_type).toBe('ANSWER');
    expect(structToJson(redeemed.response.result)).toEqual({ content: { finished: true } });
  });

  it('promise: estimated_completion in meta (full client)', async () => {
    const { response } = await unary(live.full, 'CallTool', toolRequest('slow', {}));
    expect(response.meta.response_type).toBe('PROMISE');
    expect(Number(response.meta.estimated_completion)).toBeGreaterThanOrEqual(
      Number(response.meta.timestamp),
    );
    const cancelled = await unary(
      live.full,
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
      live.spec,
      'CallTool',
      toolRequest('redeem', { promise: `prom_${'A'.repeat(32)}` }),
    );
    const e = expectStatus(unknown.error, status.NOT_FOUND);
    expect(errorDetails(e)?.errorInfo?.reason).toBe('PROMISE_NOT_FOUND');
    const malformed = await unary(live.spec, 'CallTool', toolRequest('redeem', { promise: 'nope' }));
    expectStatus(malformed.error, status.INVALID_ARGUMENT);
  });

  it('elicitation: ELICITATION with message, schema and state; answered through ToolRequest.elicitation', async () => {
    const asked = await unary(live.spec, 'CallTool', toolRequest('ask', {}));
    expect(asked.response.meta.response_type).toBe('ELICITATION');
    const { elicitation } = structToJson(asked.response.result) as any;
    expect(elicitation.message).toBe('Which colour?');
    expect(elicitation.requested_schema).toMatchObject({ type: 'object', required: ['colour'] });
    expect(typeof elicitation.state).toBe('string');

    const answered = await unary(
      live.full,
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
      live.full,
      'CallTool',
      toolRequest(
        'ask',
        {},
        { elicitation: { state: elicitation.state, answers: jsonToStruct({ colour: 7 }) } },
      ),
    );
    expectStatus(wrong.error, status.INVALID_ARGUMENT);
    const forged = await unary(
      live.full,
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
    const asSpec = await unary(live.spec, 'CallTool', toolRequest('more', {}));
    expect(asSpec.response.meta.response_type).toBe(4);
    const asFull = await unary(live.full, 'CallTool', toolRequest('more', {}));
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
