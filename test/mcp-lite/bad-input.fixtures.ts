/**
 * Shared setup of the HTTP binding's bad-input tests (`bad-input-*.test.ts`): the tools, the server with a
 * small body limit that each part starts once (and checks is still serving after every test), and a reader
 * of JSON-RPC errors.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { defineTool } from '../../src/index.js';
import {
  expectStillServing,
  type JsonRpcResponse,
  postJson,
  startServer,
  type TestServer,
} from '../support/http-harness.js';

/** The rpc endpoint's path, for requests written by hand. */
export const RPC_PATH = '/mcp-lite/v1/rpc';
/** The shared server's `maxBodyBytes`. */
export const LIMIT = 1024;

/** The arguments the `inspect` tool was last called with. */
export let seenArgs: unknown;

/** The tools every server of these tests serves: `echo` (answers its text's length) and `inspect`. */
export const tools = [
  defineTool({
    name: 'echo',
    description: 'Echoes its text',
    inputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
    handler: ({ text }: { text: string }) => ({ length: text.length }),
  }),
  defineTool({
    name: 'inspect',
    description: 'Keeps its arguments for the test',
    handler: (args: unknown) => {
      seenArgs = args;
      return { keys: Object.keys(args as object) };
    },
  }),
];

/** The shared server of the calling test file (body limit `LIMIT`), started by `useBadInputServer`. */
export let t: TestServer;

/** Starts the shared server for the calling file's tests, checks it still serves after each, closes it. */
export function useBadInputServer(): void {
  beforeAll(async () => {
    t = await startServer({ tools }, { maxBodyBytes: LIMIT });
  });
  afterAll(() => t.close());
  afterEach(async () => {
    await expectStillServing(t.rpcUrl);
  });
}

/** POSTs `body` to the shared server's rpc endpoint, expects `expectedStatus`; the JSON-RPC reply's error. */
export async function rpcError(body: unknown, expectedStatus: number): Promise<JsonRpcResponse['error']> {
  const res = await postJson(t.rpcUrl, body);
  expect(res.status).toBe(expectedStatus);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const reply = (await res.json()) as JsonRpcResponse;
  expect(reply.jsonrpc).toBe('2.0');
  return reply.error;
}
