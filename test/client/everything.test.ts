/**
 * The client against a real third-party MCP server installed from npm, `@modelcontextprotocol/server-everything`
 * (built on the official SDK, handshake revisions only), over stdio and over Streamable HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallOutcome, type Client, connect } from '../../src/client/index.js';
import { EVERYTHING, startEverythingHttp } from '../support/everything.js';

const targets: Array<{ name: string; open: () => Promise<{ client: Client; stop?: () => Promise<void> }> }> =
  [
    {
      name: 'stdio',
      open: async () => ({
        client: await connect(`${process.execPath} ${EVERYTHING} stdio`, { stderr: 'ignore' }),
      }),
    },
    {
      name: 'Streamable HTTP',
      open: async () => {
        const { url, stop } = await startEverythingHttp();
        const client = await connect(url);
        return { client, stop };
      },
    },
  ];

for (const t of targets) {
  describe(`client against server-everything over ${t.name}`, () => {
    let client: Client;
    let stop: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      ({ client, stop } = await t.open());
    }, 120_000);
    afterAll(async () => {
      await client.close();
      await stop?.();
    });

    it('speaks a handshake revision and lists its tools', async () => {
      expect(client.binding).toBe(t.name === 'stdio' ? 'stdio' : 'mcp');
      const names = (await client.listTools()).map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']));
    });

    it('calls tools and reads their answers', async () => {
      expect(await client.call('echo', { message: 'hello' })).toMatchObject({
        type: 'answer',
        value: 'Echo: hello',
      });
      const sum = await client.call('get-sum', { a: 2, b: 3 });
      expect(sum.type).toBe('answer');
      expect(JSON.stringify(sum)).toContain('5');
    });

    it('streams progress notifications as partials', async () => {
      const events: Array<{ type: string; value?: unknown }> = [];
      for await (const ev of client.stream('trigger-long-running-operation', { duration: 0.3, steps: 3 }))
        events.push(ev);
      const partials = events.filter((e) => e.type === 'partial');
      expect(partials.map((p) => p.value)).toEqual(
        [1, 2, 3].map((i) => expect.objectContaining({ progress: i, total: 3 })),
      );
      expect(events.at(-1)).toMatchObject({ type: 'answer' });
    });

    it('turns its elicitation/create into an elicitation outcome and answers it', async () => {
      await expect
        .poll(async () =>
          (await client.listTools()).some((tool) => tool.name === 'trigger-elicitation-request'),
        )
        .toBe(true);
      const first: CallOutcome = await client.call('trigger-elicitation-request', {});
      expect(first.type).toBe('elicitation');
      if (first.type !== 'elicitation') return;
      expect(first.requestedSchema).toMatchObject({ required: ['name'] });
      const done = await first.answer({ name: 'Ada Lovelace' });
      expect(done.type).toBe('answer');
      expect(JSON.stringify(done)).toContain('Ada Lovelace');
    });

    it('reports an unknown tool as the failure the SDK server answers with', async () => {
      // The SDK's McpServer answers an unknown tool with isError: true rather than a JSON-RPC error.
      const outcome = await client.call('no-such-tool', {});
      expect(outcome).toMatchObject({ type: 'failure' });
      expect((outcome as { message: string }).message).toContain('no-such-tool');
    });
  });
}
