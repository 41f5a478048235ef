/**
 * Attacks on the gRPC binding (issue 9), kept as tests on a real socket: a call whose deadline passed on the
 * way must not run the tool (sent raw over node:http2 with `grpc-timeout: 1n`, since a grpc-js client will not
 * send an expired deadline), and the Structs of a request are bounded in values and depth before decoding.
 */
import { connect } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, defineTool } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import {
  jsonToStruct,
  type McpLiteClient,
  makeClient,
  structToJson,
  toolRequest,
  unary,
} from '../support/grpc-client.js';

let runs = 0;
const tools = [
  defineTool({
    name: 'take',
    description: 'Takes any arguments and counts its runs',
    inputSchema: { type: 'object' },
    handler: (args) => {
      runs++;
      return { keys: Object.keys(args).length };
    },
  }),
];

let running: RunningServer;
let client: McpLiteClient;

beforeAll(async () => {
  running = await serve(createServer({ tools }), { port: 0, grpcPort: 0 });
  client = makeClient(running.grpc!.address, 'full');
});
afterAll(async () => {
  client.close();
  await running.close(1000);
});

/** A ToolRequest { name } in gRPC framing, encoded by hand: field 1, length-delimited. */
function framedToolRequest(name: string): Buffer {
  const message = Buffer.concat([Buffer.from([0x0a, name.length]), Buffer.from(name)]);
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}

/** One raw CallTool with the given grpc-timeout; resolves with the grpc-status trailer. */
function rawCall(timeout: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const session = connect(`http://${running.grpc!.address}`);
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': '/mcplite.MCPLite/CallTool',
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-timeout': timeout,
    });
    let status: string | undefined;
    stream.on('response', (headers) => {
      if (headers['grpc-status'] !== undefined) status = String(headers['grpc-status']);
    });
    stream.on('trailers', (trailers) => {
      status = String(trailers['grpc-status']);
    });
    stream.on('data', () => {});
    stream.on('close', () => {
      session.close();
      resolve(status);
    });
    stream.end(framedToolRequest('take'));
  });
}

describe('gRPC deadlines', () => {
  it('does not run a call whose deadline passed on arrival (DEADLINE_EXCEEDED)', async () => {
    runs = 0;
    for (let i = 0; i < 5; i++) expect(await rawCall('1n')).toBe('4');
    // Give anything that was started the time to finish before counting.
    await new Promise((r) => setTimeout(r, 50));
    expect(runs).toBe(0);
    // The same call with time to spare runs.
    expect(await rawCall('10S')).toBe('0');
    expect(runs).toBe(1);
  });
});

describe('gRPC Struct bounds', () => {
  it('refuses more than 10,000 values with RESOURCE_EXHAUSTED before decoding them', async () => {
    runs = 0;
    const wide: Record<string, number> = {};
    for (let i = 0; i < 15_000; i++) wide[`k${i}`] = i;
    const refused = await unary(client, 'CallTool', toolRequest('take', wide));
    expect(refused.error?.code).toBe(8); // RESOURCE_EXHAUSTED
    expect(refused.error?.details).toMatch(/more than 10000 values/);
    expect(runs).toBe(0);
    // Values in lists and in elicitation answers count too.
    const list = await unary(client, 'CallTool', toolRequest('take', { list: Object.values(wide) }));
    expect(list.error?.code).toBe(8);
    const answers = await unary(
      client,
      'CallTool',
      toolRequest('take', {}, { elicitation: { state: 'x.y', answers: jsonToStruct(wide) } }),
    );
    expect(answers.error?.code).toBe(8);
    // Within the bound it works.
    const fine = await unary(client, 'CallTool', toolRequest('take', { a: 1, b: [1, 2, { c: 3 }] }));
    expect(structToJson(fine.response.result).content).toEqual({ keys: 2 });
  });

  it('refuses nesting deeper than 32 levels with INVALID_ARGUMENT', async () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const refused = await unary(client, 'CallTool', toolRequest('take', deep));
    expect(refused.error?.code).toBe(3); // INVALID_ARGUMENT
    expect(refused.error?.details).toMatch(/deeper than 32/);
    let deepList: unknown = 1;
    for (let i = 0; i < 40; i++) deepList = [deepList];
    expect((await unary(client, 'CallTool', toolRequest('take', { l: deepList }))).error?.code).toBe(3);
    let ok: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 25; i++) ok = { d: ok };
    expect((await unary(client, 'CallTool', toolRequest('take', ok))).response).toBeDefined();
  });

  it('still answers malformed bytes with INVALID_ARGUMENT', async () => {
    const status = await new Promise<string | undefined>((resolve, reject) => {
      const session = connect(`http://${running.grpc!.address}`);
      session.on('error', reject);
      const stream = session.request({
        ':method': 'POST',
        ':path': '/mcplite.MCPLite/CallTool',
        'content-type': 'application/grpc',
        te: 'trailers',
      });
      let s: string | undefined;
      stream.on('trailers', (t) => {
        s = String(t['grpc-status']);
      });
      stream.on('response', (h) => {
        if (h['grpc-status'] !== undefined) s = String(h['grpc-status']);
      });
      stream.on('data', () => {});
      stream.on('close', () => {
        session.close();
        resolve(s);
      });
      // arguments (field 2) claims 100 bytes but the message ends after 3.
      const message = Buffer.from([0x12, 100, 0x0a, 0x01, 0x61]);
      const header = Buffer.alloc(5);
      header.writeUInt32BE(message.length, 1);
      stream.end(Buffer.concat([header, message]));
    });
    expect(status).toBe('3');
  });
});
