/**
 * The protocol-neutral tool server on its own, as bindings call it: synchronous answers stay synchronous, errors
 * found before the handler are thrown, `_meta` carries times as numbers, long-running tools and calls past the
 * answer budget become promises that `redeem` settles, and shutdown stops what runs. Promises use the embedded
 * memory store (`createServer`).
 */
import { describe, expect, it } from 'vitest';
import { createServer } from '../create-server.js';
import { McpLiteError } from './errors.js';
import type { Logger } from './logger.js';
import { failure } from './outcomes.js';
import { groupedOptions } from './server-options.js';

function recordingLogger(lines: Array<{ obj: unknown; msg?: string }>): Logger {
  const logger: Logger = {
    debug() {},
    info() {},
    warn() {},
    error(obj, msg) {
      lines.push({ obj, msg });
    },
    child: () => logger,
  };
  return logger;
}

const echo = { name: 'echo', handler: (a: Record<string, unknown>) => a };

describe('ToolServer.call', () => {
  it('answers a synchronous handler synchronously, with _meta times as numbers', () => {
    const server = createServer({ tools: [echo], version: '1.2.3', promiseStore: false });
    const before = Date.now();
    const result = server.call({ name: 'echo', arguments: { a: 1 } });
    expect(result).not.toBeInstanceOf(Promise);
    const { outcome, meta } = result as Exclude<typeof result, Promise<unknown>>;
    expect(outcome).toEqual({ type: 'answer', result: { a: 1 } });
    expect(meta.response_type).toBe('answer');
    expect(meta.server_version).toBe('1.2.3');
    expect(meta.timestamp).toBeGreaterThanOrEqual(before);
    expect(meta.timestamp).toBeLessThanOrEqual(Date.now());
    expect(Number.isInteger(meta.processing_time_ms)).toBe(true);
  });

  it('throws what it finds before the handler runs: unknown tool (with a suggestion), bad arguments', () => {
    const server = createServer({ tools: [echo], promiseStore: false });
    const unknown = catchSync(() => server.call({ name: 'ecko' }));
    expect(unknown).toMatchObject({ code: 'tool_not_found', data: { suggestion: "Did you mean 'echo'?" } });
    const long = catchSync(() => server.call({ name: 'x'.repeat(1000) }));
    expect((long as McpLiteError).data?.requested_tool).toHaveLength(257);
    expect(catchSync(() => server.call({ name: 'echo', arguments: [1] }))).toMatchObject({
      code: 'invalid_params',
    });
  });

  it('resolves an async handler, and answers a failure outcome as an outcome, not an error', async () => {
    const server = createServer({
      tools: [
        { name: 'later', handler: async () => 'done' },
        { name: 'no', handler: () => failure('not today', { code: 'E1' }) },
      ],
      promiseStore: false,
    });
    expect((await server.callTool({ name: 'later' })).outcome).toEqual({ type: 'answer', result: 'done' });
    expect((await server.callTool({ name: 'no' })).outcome).toEqual({
      type: 'failure',
      message: 'not today',
      code: 'E1',
    });
  });

  it('turns a throwing handler into an internal error that leaks nothing, logged once with the tool', async () => {
    const lines: Array<{ obj: unknown; msg?: string }> = [];
    const server = createServer({
      logger: recordingLogger(lines),
      promiseStore: false,
      tools: [
        {
          name: 'boom',
          handler: () => {
            throw new Error('secret');
          },
        },
      ],
    });
    const err = await server.callTool({ name: 'boom' }).catch((e) => e);
    expect(err).toBeInstanceOf(McpLiteError);
    expect(err).toMatchObject({ code: 'internal', message: 'Internal error' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'tool handler failed', obj: { tool: 'boom' } });
  });

  it('rejects with the abort reason when the caller goes away', async () => {
    const server = createServer({
      promiseStore: false,
      tools: [{ name: 'slow', handler: () => new Promise((r) => setTimeout(r, 5_000)) }],
    });
    const controller = new AbortController();
    const pending = server.callTool({ name: 'slow', signal: controller.signal });
    controller.abort(new McpLiteError('cancelled', 'gone'));
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
  });
});

describe('promises', () => {
  it('lists redeem and cancel only with a store, and refuses long-running tools without one', () => {
    // Only where a tool can return a promise (issue 22, item 10): a long-running tool, or an answer budget set.
    expect(createServer({ tools: [echo] }).catalog.names()).toEqual(['echo']);
    const longRunning = { name: 'l', longRunning: true, handler: () => 1 };
    expect(createServer({ tools: [echo, longRunning] }).catalog.names()).toEqual(
      expect.arrayContaining(['redeem', 'cancel']),
    );
    expect(createServer({ tools: [echo], answerBudgetMs: 5_000 }).catalog.names()).toEqual(
      expect.arrayContaining(['redeem', 'cancel']),
    );
    expect(createServer({ tools: [echo], promiseStore: false }).catalog.names()).toEqual(['echo']);
    expect(() =>
      createServer({ tools: [{ name: 'l', longRunning: true, handler: () => 1 }], promiseStore: false }),
    ).toThrow(/promise store/);
  });

  it('answers a long-running tool with a promise that redeem settles', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const server = createServer({
      tools: [
        {
          name: 'job',
          longRunning: { estimatedMs: 5_000 },
          handler: async () => {
            await gate;
            return { ok: true };
          },
        },
      ],
    });
    const { outcome, meta } = await server.callTool({ name: 'job' });
    expect(outcome.type).toBe('promise');
    const token = (outcome as { token: string }).token;
    expect(meta.promise_token).toBe(token);
    expect(meta.estimated_completion).toBeGreaterThan(Date.now());
    const early = await server.callTool({ name: 'redeem', arguments: { promise: token } });
    expect(early.outcome.type).toBe('promise');
    release();
    const done = await server.callTool({ name: 'redeem', arguments: { promise: token, wait_ms: 2_000 } });
    expect(done.outcome).toEqual({ type: 'answer', result: { ok: true } });
    await server.close();
  });

  it('promotes a call that outlives the answer budget into a promise', async () => {
    const server = createServer({
      answerBudgetMs: 40,
      tools: [{ name: 'slow', handler: () => new Promise((r) => setTimeout(() => r('late'), 300)) }],
    });
    const first = await server.callTool({ name: 'slow' });
    expect(first.outcome.type).toBe('promise');
    const token = (first.outcome as { token: string }).token;
    const done = await server.callTool({ name: 'redeem', arguments: { promise: token, wait_ms: 5_000 } });
    expect(done.outcome).toEqual({ type: 'answer', result: 'late' });
    await server.close();
  });
});

describe('drain and close', () => {
  it('drain waits for running calls; close aborts what still runs with unavailable', async () => {
    // With a store, a foreground call is watched for promotion: close aborts it (without one, the binding's
    // connection ends it).
    const server = createServer({
      answerBudgetMs: 60_000,
      tools: [
        { name: 'short', handler: () => new Promise((r) => setTimeout(() => r(1), 30)) },
        {
          name: 'forever',
          handler: (_a, ctx) =>
            new Promise((_r, reject) =>
              ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
            ),
        },
      ],
    });
    const short = server.callTool({ name: 'short' });
    expect(server.inFlight).toBe(1);
    expect(await server.drain(5_000)).toBe(true);
    await short;
    const forever = server.callTool({ name: 'forever' });
    expect(await server.drain(20)).toBe(false);
    await server.close();
    await expect(forever).rejects.toMatchObject({ code: 'unavailable' });
  });
});

function catchSync(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected a synchronous throw');
}

describe('option groups', () => {
  it('take every deprecated flat name as an alias of its group field, the group winning', () => {
    const flat = {
      tools: [],
      answerBudgetMs: 1,
      mcpInlineWaitMs: 2,
      promiseTtlMs: 3,
      maxPromisesPerCaller: 4,
      maxConcurrentWork: 5,
      leaseMs: 6,
      maxRunMs: 7,
      elicitationTtlMs: 8,
      logArguments: true,
      onCallEnd: () => {},
    };
    const grouped = groupedOptions(flat);
    expect(grouped.promises).toMatchObject({
      answerBudgetMs: 1,
      mcpInlineWaitMs: 2,
      ttlMs: 3,
      maxPerCaller: 4,
      maxConcurrentWork: 5,
      leaseMs: 6,
      maxRunMs: 7,
    });
    expect(grouped.elicitation.ttlMs).toBe(8);
    expect(grouped.observability).toMatchObject({ logArguments: true, onCallEnd: flat.onCallEnd });
    const both = groupedOptions({ ...flat, promises: { ttlMs: 30 }, elicitation: { ttlMs: 80 } });
    expect([both.promises.ttlMs, both.promises.leaseMs, both.elicitation.ttlMs]).toEqual([30, 6, 80]);
  });

  it('configure the server as the flat names do', async () => {
    const names = (s: { listTools(): { tools: readonly { name: string }[] } }) =>
      s.listTools().tools.map((t) => t.name);
    expect(names(createServer({ tools: [echo], promises: { answerBudgetMs: 5_000 } }))).toEqual(
      expect.arrayContaining(['redeem', 'cancel']),
    );
    expect(createServer({ tools: [echo], promises: { store: false } }).promisesEnabled).toBe(false);
    expect(createServer({ tools: [echo], promiseStore: false }).promisesEnabled).toBe(false);
    const lines: Array<{ obj: unknown; msg?: string }> = [];
    const server = createServer({
      observability: { logger: recordingLogger(lines) },
      promises: { store: false },
      tools: [
        {
          name: 'boom',
          handler: () => {
            throw new Error('secret');
          },
        },
      ],
    });
    expect(await server.callTool({ name: 'boom' }).catch((e) => e)).toBeInstanceOf(McpLiteError);
    expect(lines).toHaveLength(1);
  });
});
