/**
 * MCP over gRPC (model_context_protocol.Mcp) beside mcplite.MCPLite: a client generated at test time from the
 * reference proto files (../shared/spec/google-mcp-grpc, grpc-js + proto-loader, nothing of mcplite's) lists and
 * calls the demo's tools, reads a resource and a template, gets a prompt, completes an argument, answers an
 * elicitation through dependent responses, and gets the statuses due; reflection resolves both services. A
 * promise's work is waited for in the call (as over MCP) unless the client asks for none or its deadline is near;
 * mcplite's client asks for none and redeems.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Client,
  credentials,
  loadPackageDefinition,
  Metadata,
  type ServiceError,
  status,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { listenGrpc } from '../../src/bindings/grpc/listen.js';
import { connect } from '../../src/client/index.js';
import { gatewayTools } from '../../src/gateway/gateway-tools.js';
import { bearerAuth, createServer, McpLiteError, visibleTools } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { latch } from '../support/latch.js';
import { reflect } from '../support/reflection-client.js';

const SPEC = join(import.meta.dirname, '../../../shared/spec/google-mcp-grpc');
const REFERENCE = existsSync(SPEC) ? SPEC : '/work/shared/spec/google-mcp-grpc';

type Reply = Record<string, any>;
type Rpc = (request: Reply, metadata?: Metadata) => Promise<Reply>;

/** A client of model_context_protocol.Mcp built from the reference files only. */
function mcpClient(address: string): { client: Client; rpc: (method: string) => Rpc } {
  const definition = loadSync(join(REFERENCE, 'mcp.proto'), {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
    includeDirs: [REFERENCE],
  });
  const pkg = loadPackageDefinition(definition) as any;
  const client: Client = new pkg.model_context_protocol.Mcp(address, credentials.createInsecure());
  const rpc =
    (method: string): Rpc =>
    (request, metadata = new Metadata()) =>
      new Promise((resolve, reject) => {
        (client as any)[method](request, metadata, (err: ServiceError | null, reply: Reply) =>
          err ? reject(err) : resolve(reply),
        );
      });
  return { client, rpc };
}

/** A google.protobuf.Struct (proto-loader's object form) as JSON, enough for the demo's answers. */
function json(struct: Reply | null | undefined): Reply {
  const out: Reply = {};
  for (const [k, v] of Object.entries(struct?.fields ?? {})) out[k] = value(v as Reply);
  return out;
}
function value(v: Reply): unknown {
  if (v.kind === 'structValue') return json(v.structValue);
  if (v.kind === 'listValue') return (v.listValue.values ?? []).map(value);
  if (v.kind === 'nullValue') return null;
  return v[v.kind];
}
function struct(o: Reply): Reply {
  const fields: Reply = {};
  for (const [k, v] of Object.entries(o)) {
    fields[k] =
      typeof v === 'string'
        ? { stringValue: v }
        : typeof v === 'number'
          ? { numberValue: v }
          : typeof v === 'boolean'
            ? { boolValue: v }
            : { structValue: struct(v as Reply) };
  }
  return { fields };
}

function withMetadata(entries: Record<string, string>): Metadata {
  const m = new Metadata();
  for (const [k, v] of Object.entries(entries)) m.set(k, v);
  return m;
}

async function statusOf(pending: Promise<unknown>): Promise<number> {
  try {
    await pending;
  } catch (err) {
    return (err as ServiceError).code;
  }
  throw new Error('the call succeeded');
}

let running: RunningServer;
let guarded: RunningServer;
let mcp: ReturnType<typeof mcpClient>;
let guardedMcp: ReturnType<typeof mcpClient>;

beforeAll(async () => {
  running = await serve(createServer({ tools, ...serverOptions }), { port: 0, grpcPort: 0 });
  guarded = await serve(createServer({ tools, ...serverOptions, authenticate: bearerAuth(['t0k3n']) }), {
    port: 0,
    grpcPort: 0,
  });
  mcp = mcpClient(running.grpc!.address);
  guardedMcp = mcpClient(guarded.grpc!.address);
});
afterAll(async () => {
  mcp?.client.close();
  guardedMcp?.client.close();
  await running?.close(1000);
  await guarded?.close(1000);
});

describe('model_context_protocol.Mcp from the reference proto', () => {
  it("the project's proto files define the reference's package, service, messages, numbers and types", () => {
    const load = (dir: string) =>
      loadSync(join(dir, 'mcp.proto'), { keepCase: true, includeDirs: [dir] }) as Record<string, any>;
    const ours = load(join(import.meta.dirname, '../../proto'));
    const reference = load(REFERENCE);
    // Comments and file options aside, every type and every method reads the same.
    const shape = (d: Record<string, any>) =>
      Object.fromEntries(
        Object.entries(d).map(([name, t]) => [
          name,
          t.type
            ? JSON.stringify(t.type, (k, v) => (k === 'options' || k === 'sourceCodeInfo' ? undefined : v))
            : Object.fromEntries(
                Object.entries(t).map(([m, x]: [string, any]) => [
                  m,
                  [
                    x.path,
                    x.requestType.type.name,
                    x.responseType.type.name,
                    x.requestStream,
                    x.responseStream,
                  ],
                ]),
              ),
        ]),
      );
    expect(Object.keys(ours).sort()).toEqual(Object.keys(reference).sort());
    expect(shape(ours)).toEqual(shape(reference));
  });

  it('reflection lists both services and resolves Mcp strictly', async () => {
    const reflected = await reflect(running.grpc!.address, 'model_context_protocol.Mcp');
    expect(reflected.services).toEqual(
      expect.arrayContaining(['mcplite.MCPLite', 'model_context_protocol.Mcp', 'grpc.health.v1.Health']),
    );
    expect(reflected.service.methods.map((m) => m.name)).toEqual([
      'ListResources',
      'ReadResource',
      'ListResourceTemplates',
      'ListPrompts',
      'GetPrompt',
      'ListTools',
      'CallTool',
      'Complete',
    ]);
  });

  it('health reports model_context_protocol.Mcp SERVING beside mcplite.MCPLite', async () => {
    const pkg = loadPackageDefinition(
      loadSync(healthProtoPath, { keepCase: true, enums: String, defaults: true }),
    ) as any;
    const health = new pkg.grpc.health.v1.Health(running.grpc!.address, credentials.createInsecure());
    const check = (service: string) =>
      new Promise<string>((resolve, reject) =>
        health.Check({ service }, (err: ServiceError | null, r: Reply) =>
          err ? reject(err) : resolve(r.status),
        ),
      );
    try {
      expect(await check('model_context_protocol.Mcp')).toBe('SERVING');
      expect(await check('mcplite.MCPLite')).toBe('SERVING');
    } finally {
      health.close();
    }
  });

  it('lists the tools with their schemas and hints', async () => {
    const { tools: listed } = await mcp.rpc('ListTools')({});
    const names = listed.map((t: Reply) => t.name);
    expect(names).toEqual(expect.arrayContaining(['search_documents', 'subscribe_digest', 'echo']));
    const search = listed.find((t: Reply) => t.name === 'search_documents');
    expect(json(search.input_schema).type).toBe('object');
  });

  it('calls a tool: content, structured_content, is_error', async () => {
    const reply = await mcp.rpc('CallTool')(
      { request: { name: 'echo', arguments: struct({ message: 'hi' }) } },
      withMetadata({ mcp_tool: 'echo' }),
    );
    expect(reply.is_error).toBe(false);
    expect(json(reply.structured_content)).toMatchObject({ message: 'hi' });
    expect(JSON.parse(reply.content[0].text.text)).toMatchObject({ message: 'hi' });

    const found = await mcp.rpc('CallTool')({
      request: { name: 'search_documents', arguments: struct({ query: 'MCP specification', limit: 3 }) },
    });
    // An array answer is structured_content { result } as over MCP.
    expect((json(found.structured_content).result as unknown[]).length).toBe(3);
  });

  it('invalid arguments are an is_error result the model reads, as over MCP', async () => {
    const reply = await mcp.rpc('CallTool')({ request: { name: 'echo', arguments: struct({ message: 5 }) } });
    expect(reply.is_error).toBe(true);
    expect(reply.content[0].text.text).toMatch(/message/);
  });

  it('a tool execution failure is is_error, not a status', async () => {
    const reply = await mcp.rpc('CallTool')({
      request: { name: 'get_document', arguments: struct({ document_id: 'doc_999999' }) },
    });
    expect(reply.is_error).toBe(true);
    expect(reply.content[0].text.text).toMatch(/doc_999999/);
  });

  it('completes an argument, then reads the resource, the template and the prompt it names', async () => {
    const completed = await mcp.rpc('Complete')(
      {
        resource_reference: { uri: 'demo://documents/{document_id}' },
        argument: { name: 'document_id', value: 'doc_00' },
      },
      withMetadata({ mcp_resource: 'demo://documents/{document_id}' }),
    );
    expect(completed.values.length).toBeGreaterThan(0);
    expect(completed.values.every((v: string) => v.startsWith('doc_00'))).toBe(true);
    expect(Number(completed.total_matches)).toBeGreaterThanOrEqual(completed.values.length);
    const id = completed.values[0] as string;

    const { resources } = await mcp.rpc('ListResources')({});
    expect(resources.map((r: Reply) => r.uri)).toContain('demo://documents');
    const index = await mcp.rpc('ReadResource')({ uri: 'demo://documents' });
    expect(JSON.parse(index.resource[0].text).documents).toBeGreaterThan(0);

    const { resource_templates } = await mcp.rpc('ListResourceTemplates')({});
    expect(resource_templates.map((t: Reply) => t.uri_template)).toContain('demo://documents/{document_id}');
    const doc = await mcp.rpc('ReadResource')(
      { uri: `demo://documents/${id}` },
      withMetadata({ mcp_resource: `demo://documents/${id}` }),
    );
    expect(doc.resource[0]).toMatchObject({ uri: `demo://documents/${id}`, mime_type: 'text/markdown' });

    const { prompts } = await mcp.rpc('ListPrompts')({});
    const summarize = prompts.find((p: Reply) => p.name === 'summarize_document');
    expect(summarize.arguments[0]).toMatchObject({ name: 'document_id', required: true });
    const prompt = await mcp.rpc('GetPrompt')(
      { name: 'summarize_document', arguments: { document_id: id } },
      withMetadata({ mcp_prompt: 'summarize_document' }),
    );
    expect(prompt.messages[0].role).toBe('ROLE_USER');
    expect(prompt.messages[0].text.text).toMatch(/Summarize this document/);

    const promptCompletion = await mcp.rpc('Complete')({
      prompt_reference: { name: 'summarize_document' },
      argument: { name: 'document_id', value: 'doc_00' },
    });
    expect(promptCompletion.values).toEqual(completed.values);
  });

  it("CallTool waits for a promise's work as MCP's tools/call does: a plain client gets the answer", async () => {
    const answered = await mcp.rpc('CallTool')({
      request: {
        name: 'analyze_dataset',
        arguments: struct({ dataset_id: 'all', analysis_type: 'summary' }),
      },
    });
    expect(answered.is_error).toBe(false);
    expect(json(answered.structured_content)).toHaveProperty('documents');
    expect(json(answered.common?.metadata)).not.toHaveProperty('mcplite/promise');
  });

  it('with mcplite/inline_wait_ms 0, a promise comes in common.metadata["mcplite/promise"] and is redeemed through CallTool', async () => {
    const started = await mcp.rpc('CallTool')({
      request: {
        name: 'analyze_dataset',
        arguments: struct({ dataset_id: 'all', analysis_type: 'summary' }),
      },
      common: { metadata: struct({ 'mcplite/inline_wait_ms': 0 }) },
    });
    const promise = json(started.common.metadata)['mcplite/promise'] as Reply;
    expect(promise).toMatchObject({ status: 'pending' });
    expect(started.content[0].text.text).toContain(promise.promise_token);
    const redeem = () =>
      mcp.rpc('CallTool')({
        request: { name: 'redeem', arguments: struct({ promise: promise.promise_token, wait_ms: 15_000 }) },
      });
    let redeemed = await redeem();
    for (let i = 0; i < 5 && json(redeemed.structured_content).status === 'pending'; i++)
      redeemed = await redeem();
    expect(redeemed.is_error).toBe(false);
    expect(json(redeemed.structured_content)).toHaveProperty('documents');
  });

  it("the wait ends before the client's deadline: work longer than the deadline allows answers as the promise", async () => {
    const reply = await new Promise<Reply>((resolve, reject) =>
      (mcp.client as any).CallTool(
        {
          request: {
            name: 'analyze_dataset',
            arguments: struct({ dataset_id: 'all', analysis_type: 'comprehensive' }),
          },
        },
        new Metadata(),
        { deadline: Date.now() + 2500 },
        (err: ServiceError | null, r: Reply) => (err ? reject(err) : resolve(r)),
      ),
    );
    // The work takes three seconds; the server answered a second before the deadline, with the promise.
    expect(json(reply.common.metadata)['mcplite/promise']).toMatchObject({ status: 'pending' });
  });

  it('answers an elicitation through dependent responses and resume data', async () => {
    const first = await mcp.rpc('CallTool')({ request: { name: 'subscribe_digest', arguments: struct({}) } });
    const requests = first.common.dependent_requests as Record<string, Reply>;
    const [key, asked] = Object.entries(requests)[0]!;
    expect(asked.elicit_request.message).toMatch(/email/);
    expect(asked.elicit_request.requested_schema.email.string_schema.format).toBe('FORMAT_EMAIL');
    expect(asked.elicit_request.requested_schema.frequency.enum_schema.enum_list).toEqual([
      'daily',
      'weekly',
    ]);
    expect(asked.elicit_request.required_fields).toEqual(expect.arrayContaining(['email', 'frequency']));
    const category = asked.elicit_request.requested_schema.category.enum_schema.enum_list[0] as string;

    // The retry leaves `request` out, as the proto allows: the resume data names the call.
    const answers = struct({ email: 'ada@example.com', frequency: 'weekly', category });
    const done = await mcp.rpc('CallTool')({
      common: {
        resume_data: first.common.resume_data,
        dependent_responses: { [key]: { elicit_result: { type: 'TYPE_ACCEPT', content: answers } } },
      },
    });
    expect(done.is_error).toBe(false);
    expect(json(done.structured_content)).toMatchObject({
      subscribed: true,
      email: 'ada@example.com',
      category,
    });

    // A state is good for one answer; other arguments than the call's are refused too.
    const resume = json(first.common.resume_data);
    const tampered = await statusOf(
      mcp.rpc('CallTool')({
        request: { name: 'subscribe_digest', arguments: struct({ email: 'eve@example.com' }) },
        common: {
          resume_data: struct({ requestState: resume.requestState as string }),
          dependent_responses: { [key]: { elicit_result: { type: 'TYPE_ACCEPT', content: answers } } },
        },
      }),
    );
    expect(tampered).toBe(status.INVALID_ARGUMENT);
  });

  it('INVALID_ARGUMENT, NOT_FOUND, UNAUTHENTICATED where due', async () => {
    const mismatch = mcp.rpc('CallTool')(
      { request: { name: 'echo', arguments: struct({ message: 'x' }) } },
      withMetadata({ mcp_tool: 'search_documents' }),
    );
    expect(await statusOf(mismatch)).toBe(status.INVALID_ARGUMENT);
    expect(await statusOf(mcp.rpc('CallTool')({}))).toBe(status.INVALID_ARGUMENT);
    expect(await statusOf(mcp.rpc('CallTool')({ request: { name: 'no_such_tool' } }))).toBe(status.NOT_FOUND);
    expect(await statusOf(mcp.rpc('ReadResource')({ uri: 'demo://nothing' }))).toBe(status.NOT_FOUND);
    expect(await statusOf(mcp.rpc('GetPrompt')({ name: 'no_such_prompt' }))).toBe(status.NOT_FOUND);
    expect(
      await statusOf(
        mcp.rpc('GetPrompt')({ name: 'summarize_document' }, withMetadata({ mcp_prompt: 'other' })),
      ),
    ).toBe(status.INVALID_ARGUMENT);

    // A prompt without its required argument, a completion naming two references.
    expect(await statusOf(mcp.rpc('GetPrompt')({ name: 'summarize_document' }))).toBe(
      status.INVALID_ARGUMENT,
    );
    expect(
      await statusOf(
        mcp.rpc('Complete')({
          resource_reference: { uri: 'demo://documents/{document_id}' },
          prompt_reference: { name: 'summarize_document' },
          argument: { name: 'document_id', value: 'doc' },
        }),
      ),
    ).toBe(status.INVALID_ARGUMENT);

    expect(await statusOf(guardedMcp.rpc('ListTools')({}))).toBe(status.UNAUTHENTICATED);
    expect(await statusOf(guardedMcp.rpc('ReadResource')({ uri: 'demo://documents' }))).toBe(
      status.UNAUTHENTICATED,
    );
    const allowed = await guardedMcp.rpc('ListTools')({}, withMetadata({ authorization: 'Bearer t0k3n' }));
    expect(allowed.tools.length).toBeGreaterThan(0);
  });
});

describe("mcplite's client over MCP gRPC", () => {
  it("connect(grpc://..., { binding: 'mcp-grpc' }) reads resources and prompts as MCP's client does", async () => {
    const grpc = await connect(`grpc://${running.grpc!.address}`, { binding: 'mcp-grpc' });
    const mcpHttp = await connect(`${running.url}/mcp`);
    try {
      expect(grpc.binding).toBe('mcp-grpc');
      expect(await grpc.listResources()).toEqual(await mcpHttp.listResources());
      expect(await grpc.listResourceTemplates()).toEqual(await mcpHttp.listResourceTemplates());
      expect(await grpc.readResource('demo://documents/doc_001')).toEqual(
        await mcpHttp.readResource('demo://documents/doc_001'),
      );
      expect(await grpc.listPrompts()).toEqual(await mcpHttp.listPrompts());
      const args = { document_id: 'doc_001' };
      expect(await grpc.getPrompt('summarize_document', args)).toEqual(
        await mcpHttp.getPrompt('summarize_document', args),
      );
      await expect(grpc.readResource('demo://nothing')).rejects.toMatchObject({ code: 'resource_not_found' });
    } finally {
      await grpc.close();
      await mcpHttp.close();
    }
  });
});

describe("mcplite's client redeems promises over MCP gRPC", () => {
  it('asks for no inline wait: redeem: false gives the promise at once, redeem and auto-redeem give the answer', async () => {
    const client = await connect(`grpc://${running.grpc!.address}`, { binding: 'mcp-grpc' });
    const args = { dataset_id: 'security', analysis_type: 'summary' };
    try {
      const promise = await client.call('analyze_dataset', args, { redeem: false });
      expect(promise).toMatchObject({ type: 'promise', token: expect.stringMatching(/^prom_/) });
      const token = (promise as { token: string }).token;
      expect(await client.redeem(token)).toMatchObject({
        type: 'answer',
        value: { documents: expect.any(Number) },
      });
      const seen: string[] = [];
      const redeemed = await client.call('analyze_dataset', args, { onPromise: (p) => seen.push(p.token) });
      expect(redeemed).toMatchObject({ type: 'answer', value: { documents: expect.any(Number) } });
      expect(seen).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});

describe('a CallTool cancelled while it waits for the work', () => {
  it('cancels the work, whose token its client never saw', async () => {
    const started = latch();
    const stopped = latch<unknown>();
    const waiting = createServer({
      name: 'waits',
      tools: [
        {
          name: 'wait_for_abort',
          description: 'Runs until it is cancelled',
          longRunning: { estimatedMs: 60_000 },
          handler: (_args: Record<string, never>, ctx) =>
            new Promise((_resolve, reject) => {
              ctx.signal.addEventListener('abort', () => {
                stopped.resolve(ctx.signal.reason);
                reject(ctx.signal.reason);
              });
              started.resolve();
            }),
        },
      ],
    });
    const grpc = await listenGrpc(waiting);
    const client = mcpClient(grpc.address);
    try {
      const call = (client.client as any).CallTool(
        { request: { name: 'wait_for_abort', arguments: struct({}) } },
        new Metadata(),
        () => {},
      );
      const answered = new Promise<number>((resolve) =>
        call.on('status', (s: { code: number }) => resolve(s.code)),
      );
      await started.promise;
      call.cancel();
      expect(await answered).toBe(status.CANCELLED);
      // The work itself was stopped, not only the client's wait.
      expect(await stopped.promise).toMatchObject({ code: 'cancelled' });
    } finally {
      client.client.close();
      await grpc.close(1000);
      await waiting.close();
    }
  });
});

describe('the gateway with an MCP-over-gRPC upstream', () => {
  it('serves the upstream tools, answered through model_context_protocol.Mcp', async () => {
    const upstream = await connect(`grpc://${running.grpc!.address}/model_context_protocol.Mcp`);
    const gateway = await serve(createServer({ name: 'gateway', tools: await gatewayTools(upstream) }), {
      port: 0,
    });
    const client = await connect(`${gateway.url}/mcp-lite/v1/`);
    try {
      expect(upstream.binding).toBe('mcp-grpc');
      expect((await client.listTools()).map((t) => t.name)).toEqual(
        expect.arrayContaining(['echo', 'search_documents']),
      );
      expect(await client.call('echo', { message: 'through' })).toMatchObject({
        type: 'answer',
        value: { message: 'through' },
      });
    } finally {
      await client.close();
      await gateway.close(500);
      await upstream.close();
    }
  });
});

describe('the same chain and bounds as every binding', () => {
  it('visibility, a middleware refusal and the Struct bounds hold on model_context_protocol.Mcp', async () => {
    const server = createServer({
      tools,
      ...serverOptions,
      middleware: [
        visibleTools((tool) => tool.name !== 'echo'),
        (op, next) => {
          if (op.method === 'resources/read')
            throw new McpLiteError('forbidden', 'Forbidden: no reading here');
          return next();
        },
      ],
    });
    const grpc = await listenGrpc(server, { structLimits: { maxValues: 8 } });
    const client = mcpClient(grpc.address);
    try {
      const { tools: listed } = await client.rpc('ListTools')({});
      expect(listed.map((t: Reply) => t.name)).not.toContain('echo');
      expect(
        await statusOf(client.rpc('CallTool')({ request: { name: 'echo', arguments: struct({}) } })),
      ).toBe(status.NOT_FOUND);
      expect(await statusOf(client.rpc('ReadResource')({ uri: 'demo://documents' }))).toBe(
        status.PERMISSION_DENIED,
      );
      const many = struct(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])));
      expect(
        await statusOf(client.rpc('CallTool')({ request: { name: 'search_documents', arguments: many } })),
      ).toBe(status.RESOURCE_EXHAUSTED);
      expect(await statusOf(client.rpc('ListTools')({ common: { metadata: many } }))).toBe(
        status.RESOURCE_EXHAUSTED,
      );
    } finally {
      client.client.close();
      await grpc.close(1000);
      await server.close();
    }
  });
});
