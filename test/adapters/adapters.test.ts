/**
 * The framework adapters driven by each library's own mock model, making real calls to a live server over the
 * network: the AI SDK's MockLanguageModelV3 emits a tool call through generateText (and the tool set carries the
 * input schema to the model); LangChain's structured tools are invoked (directly and as a model's tool call)
 * and converted to an OpenAI function spec. On both: auto-redeem, elicitations, and abort propagation.
 */
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toAISDKTools } from '../../src/client/ai.js';
import { type Client, connect } from '../../src/client/index.js';
import { toLangChainTools } from '../../src/client/langchain.js';
import { createServer, MemoryPromiseStore } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { aborted, clientTools } from '../support/client-fixture.js';
import { latch } from '../support/latch.js';

let running: RunningServer;
let client: Client;

/** Resolved once someone waits on a promise (the client redeeming it); renewed by the tests that abort a redeem. */
let redeeming = latch();

/** The real memory store, telling the tests when a promise is being redeemed. */
class WatchedStore extends MemoryPromiseStore {
  override waitSettled(...args: Parameters<MemoryPromiseStore['waitSettled']>) {
    redeeming.resolve();
    return super.waitSettled(...args);
  }
}

beforeAll(async () => {
  running = await serve(
    createServer({
      name: 'adapters',
      version: '1.0.0',
      tools: clientTools,
      promiseStore: new WatchedStore(),
    }),
    {
      port: 0,
      grpcPort: 0,
    },
  );
  client = await connect(`${running.url}/mcp-lite/v1/`);
});
afterAll(async () => {
  await client.close();
  await running.close(500);
});

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

describe('mcplite/ai (Vercel AI SDK)', () => {
  it('offers the tools with their schemas and runs the tool call a mock model emits', async () => {
    const tools = await toAISDKTools(client);
    expect(Object.keys(tools)).toEqual(expect.arrayContaining(['echo', 'slow_job', 'subscribe']));
    expect(Object.keys(tools)).not.toContain('redeem');
    let offered: unknown;
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        step++;
        if (step === 1) {
          offered = options.tools;
          return {
            content: [
              {
                type: 'tool-call',
                toolCallId: 'c1',
                toolName: 'echo',
                input: JSON.stringify({ message: 'from the model' }),
              },
            ],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          };
        }
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const result = await generateText({ model, tools, prompt: 'echo something', stopWhen: stepCountIs(3) });
    const echoSpec = (offered as Array<{ name: string; inputSchema: unknown }>).find(
      (t) => t.name === 'echo',
    );
    expect(echoSpec?.inputSchema).toMatchObject({ required: ['message'] });
    const toolResults = result.steps.flatMap((s) => s.toolResults);
    expect(toolResults[0]).toMatchObject({
      toolName: 'echo',
      output: { message: 'from the model', times: 1 },
    });
    expect(result.text).toBe('done');
  });

  it('redeems a promise by itself and answers elicitations through onElicitation', async () => {
    const tools = await toAISDKTools(client, {
      onElicitation: async (e) => (e.message.includes('email') ? { email: 'ai@example.com' } : undefined),
    });
    const opts = { toolCallId: 'x', messages: [] };
    expect(await tools.slow_job!.execute!({ ms: 150 }, opts)).toEqual({ done: true, ms: 150 });
    expect(await tools.subscribe!.execute!({ topic: 'ai' }, opts)).toEqual({
      subscribed: 'ai@example.com',
      topic: 'ai',
    });
  });

  it("propagates the AI SDK's abort signal to the call (the promise is cancelled)", async () => {
    const tools = await toAISDKTools(client);
    redeeming = latch();
    const controller = new AbortController();
    const call = tools.slow_job!.execute!(
      { ms: 60_000, id: 'ai-abort' },
      { toolCallId: 'y', messages: [], abortSignal: controller.signal },
    );
    // Aborted while the adapter redeems the promise the call made.
    await redeeming.promise;
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'cancelled' });
    await expect.poll(() => aborted.has('ai-abort')).toBe(true);
  });
});

describe('mcplite/langchain (@langchain/core)', () => {
  it('invokes a structured tool against the live server', async () => {
    const tools = await toLangChainTools(client);
    const echo = tools.find((t) => t.name === 'echo')!;
    expect(JSON.parse(await echo.invoke({ message: 'from langchain', times: 2 }))).toEqual({
      message: 'from langchain',
      times: 2,
    });
    // As a chat model's tool call: a ToolMessage comes back.
    const message = await echo.invoke({
      type: 'tool_call',
      id: 't1',
      name: 'echo',
      args: { message: 'as a call' },
    });
    expect(message.tool_call_id).toBe('t1');
    expect(JSON.parse(message.content as string)).toEqual({ message: 'as a call', times: 1 });
  });

  it('converts to an OpenAI function spec carrying the input schema', async () => {
    const tools = await toLangChainTools(client, { include: ['echo'] });
    expect(tools).toHaveLength(1);
    const spec = convertToOpenAITool(tools[0]!);
    expect(spec).toMatchObject({
      type: 'function',
      function: {
        name: 'echo',
        description: 'Echo the message back',
        parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
      },
    });
  });

  it('redeems a promise by itself and answers elicitations through onElicitation', async () => {
    const tools = await toLangChainTools(client, {
      onElicitation: async (e) => (e.message.includes('email') ? { email: 'lc@example.com' } : undefined),
    });
    const byName = (name: string) => tools.find((t) => t.name === name)!;
    // slow_job is long-running: the call answers a promise, which the adapter redeems before the model sees it.
    expect(JSON.parse(await byName('slow_job').invoke({ ms: 150 }))).toEqual({ done: true, ms: 150 });
    expect(JSON.parse(await byName('subscribe').invoke({ topic: 'lc' }))).toEqual({
      subscribed: 'lc@example.com',
      topic: 'lc',
    });
    // Without onElicitation, a tool that needs user input is a readable tool error.
    const bare = await toLangChainTools(client, { include: ['subscribe'] });
    await expect(bare[0]!.invoke({ topic: 'lc' })).rejects.toThrow(/needs user input/);
  });

  it("propagates LangChain's abort signal to the call (the promise is cancelled)", async () => {
    const tools = await toLangChainTools(client, { include: ['slow_job'] });
    redeeming = latch();
    const controller = new AbortController();
    const call = tools[0]!.invoke({ ms: 60_000, id: 'lc-abort' }, { signal: controller.signal });
    // Aborted while the adapter redeems the promise the call made.
    await redeeming.promise;
    controller.abort();
    await expect(call).rejects.toThrow();
    // The server-side work stops: the client cancelled the promise it was redeeming.
    await expect.poll(() => aborted.has('lc-abort')).toBe(true);
  });

  it('reports a business failure as a tool error', async () => {
    const tools = await toLangChainTools(client);
    await expect(tools.find((t) => t.name === 'refuse')!.invoke({})).rejects.toThrow(
      'No stock left (out_of_stock)',
    );
  });
});
