/** MCP-lite HTTP `prompts` (spec 8.1): list with `{}`, render with `{ name, arguments }`, 400 for bad requests. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';
import { type RunningServer, serve } from '../../../node.js';

let running: RunningServer;
let url: string;

beforeAll(async () => {
  const server = createServer({
    tools: [{ name: 'noop', handler: () => null }],
    prompts: [
      {
        name: 'review',
        description: 'Review code',
        arguments: [{ name: 'code', required: true }],
        handler: ({ code }) => `Review this: ${code}`,
      },
    ],
  });
  running = await serve(server, { port: 0 });
  url = `${running.url}/mcp-lite/v1/prompts`;
});
afterAll(() => running.close(1000));

const post = async (body: unknown) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
};

describe('POST prompts', () => {
  it('lists the prompts', async () => {
    const r = await post({});
    expect(r).toEqual({
      status: 200,
      json: {
        prompts: [
          { name: 'review', description: 'Review code', arguments: [{ name: 'code', required: true }] },
        ],
      },
    });
  });

  it('renders a prompt', async () => {
    const r = await post({ name: 'review', arguments: { code: 'x = 1' } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      description: 'Review code',
      messages: [{ role: 'user', content: { type: 'text', text: 'Review this: x = 1' } }],
    });
  });

  it('refuses unknown prompts and missing arguments with 400', async () => {
    const unknown = await post({ name: 'reveiw' });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.data).toMatchObject({ suggestion: "Did you mean 'review'?" });
    expect((await post({ name: 'review' })).status).toBe(400);
    expect((await post([])).status).toBe(400);
  });
});
