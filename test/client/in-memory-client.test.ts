/**
 * Issue 26: `connect(server)` speaks MCP to a server in this process, without a socket, through the same client
 * (the official SDK's MCP client underneath) as any target: listings, answers, promises redeemed, elicitation
 * rounds with the tool's `elicitationSchema`, cancellation, and closing.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connect } from '../../src/client/index.js';
import { createServer, defineTool, elicit, silentLogger } from '../../src/index.js';

const slow = defineTool({
  name: 'slow',
  longRunning: { estimatedMs: 50 },
  inputSchema: z.object({ ms: z.number() }),
  handler: async ({ ms }, ctx) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { waited: ms, background: ctx.background };
  },
});

const rename = defineTool({
  name: 'rename',
  inputSchema: z.object({ from: z.string() }),
  elicitationSchema: z.object({ to: z.string().min(1) }),
  handler: ({ from }, ctx) => {
    if (!ctx.elicitation) return elicit({ message: `Rename ${from} to?`, context: { from } });
    if (ctx.elicitation.action !== 'accept') return `kept ${from}`;
    return `${from} -> ${ctx.elicitation.answers.to}`;
  },
});

const unschemed = defineTool({
  name: 'unschemed',
  handler: () => elicit({ message: 'What?' }),
});

const tools = [slow, rename, unschemed];

describe('connect(server): a client without a socket', () => {
  it('lists the tools with their schemas and redeems a promise by itself', async () => {
    const server = createServer({ name: 'in-memory', tools, logger: silentLogger });
    const client = await connect<typeof tools>(server);
    try {
      expect(client.target).toBe('memory:');
      expect(client.binding).toBe('mcp');
      const listed = await client.listTools();
      expect(listed.map((t) => t.name)).toEqual(expect.arrayContaining(['slow', 'rename', 'unschemed']));
      expect(listed.find((t) => t.name === 'slow')?.inputSchema).toMatchObject({
        type: 'object',
        properties: { ms: { type: 'number' } },
      });
      const outcome = await client.call('slow', { ms: 30 });
      expect(outcome).toEqual(
        expect.objectContaining({ type: 'answer', value: { waited: 30, background: true } }),
      );
      const invalid = await client.call('slow', { ms: 'soon' } as never).catch((err: unknown) => err);
      expect(invalid).toMatchObject({ code: 'invalid_params' });
      // An unknown tool is the error it is over every other transport, not a bad argument.
      const unknown = await client.call('slwo' as never, {} as never).catch((err: unknown) => err);
      expect(unknown).toMatchObject({ code: 'tool_not_found', data: { requested_tool: 'slwo' } });
    } finally {
      await client.close();
    }
  });

  it("asks with the tool's elicitationSchema when elicit() names none, and the handler reads the answers", async () => {
    const server = createServer({ name: 'in-memory', tools, logger: silentLogger });
    const client = await connect<typeof tools>(server);
    try {
      const asked = await client.call('rename', { from: 'a.txt' });
      expect(asked).toMatchObject({ type: 'elicitation', message: 'Rename a.txt to?' });
      if (asked.type !== 'elicitation') throw new Error('expected an elicitation');
      expect(asked.requestedSchema).toMatchObject({
        type: 'object',
        properties: { to: { type: 'string', minLength: 1 } },
        required: ['to'],
      });
      expect(await asked.answer({ to: 'b.txt' })).toMatchObject({ type: 'answer', value: 'a.txt -> b.txt' });
      const again = await client.call('rename', { from: 'c.txt' });
      if (again.type !== 'elicitation') throw new Error('expected an elicitation');
      expect(await again.decline()).toMatchObject({ type: 'answer', value: 'kept c.txt' });
    } finally {
      await client.close();
    }
  });

  it('a tool that elicits without any schema is an internal error, not a crash of the server', async () => {
    const server = createServer({ name: 'in-memory', tools, logger: silentLogger });
    const client = await connect(server);
    try {
      const err = await client.call('unschemed').catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'internal' });
      // The connection still serves.
      expect((await client.listTools()).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('closing the client ends its connection: nothing runs on after it', async () => {
    let aborted = false;
    const waits = defineTool({
      name: 'waits',
      handler: (_args, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            resolve('stopped');
          });
        }),
    });
    const server = createServer({ name: 'in-memory', tools: [waits], logger: silentLogger });
    const client = await connect(server);
    const call = client.call('waits').catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await client.close();
    await call;
    await expect.poll(() => aborted).toBe(true);
  });
});
