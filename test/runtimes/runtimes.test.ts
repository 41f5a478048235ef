import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import type { McpLiteError } from '../../src/core/errors.js';
import { cardErrors, catalogErrors } from '../support/discovery-schemas.js';
import { type RunningRuntime, runtimeLaunchers } from '../support/runtimes.js';

/**
 * The fetch handler on every runtime it is claimed to run on (docs/runtimes.md): the same app
 * (`test/runtimes/app.ts`) under Node, Bun, Deno and Cloudflare's workerd with and without `nodejs_compat`, driven
 * over a real socket by the mcplite client. A runtime whose binary is missing skips with the reason in its name
 * (fails, where `MCPLITE_RUNTIMES_REQUIRED=1`).
 */

/** Every call of these tests is bounded; a runtime that hangs fails rather than stalls the suite. */
const CALL_TIMEOUT_MS = 10_000;

/** CI sets it (`.ci/run`): there a missing runtime is a failure, not a skip. */
const REQUIRED = process.env.MCPLITE_RUNTIMES_REQUIRED === '1';

for (const launcher of runtimeLaunchers()) {
  if (!launcher.available) {
    const reason = launcher.reason;
    if (REQUIRED)
      it(`${launcher.name} is installed (MCPLITE_RUNTIMES_REQUIRED)`, () => {
        expect.fail(reason);
      });
    else
      describe.skip(`${launcher.name} (skipped: ${reason})`, () => {
        it('serves the app', () => {});
      });
    continue;
  }
  describe(`the fetch handler on ${launcher.name}`, { timeout: 30_000 }, () => {
    let running: RunningRuntime;

    beforeAll(async () => {
      running = await launcher.start();
    }, 90_000);

    afterAll(async () => {
      await running?.stop();
    });

    it('answers MCP-lite HTTP calls, defaults filled by the validator this runtime allows', async () => {
      const client = await connect(`${running.url}/mcp-lite/v1/`, { timeout: CALL_TIMEOUT_MS });
      try {
        const names = (await client.listTools()).map((t) => t.name);
        expect(names).toEqual(expect.arrayContaining(['greet', 'count', 'slow_sum', 'runtime']));
        expect(await client.call('greet', { name: 'Ann' })).toMatchObject({
          type: 'answer',
          value: 'Hello, Ann!',
        });
        const runtime = await client.call('runtime', {});
        // Workers forbid generating code: there the interpreting validator must have answered the call above.
        if (launcher.name.startsWith('workerd'))
          expect(runtime).toMatchObject({ value: { codeGeneration: false } });
        if (launcher.name === 'workerd') expect(runtime).toMatchObject({ value: { nodeProcess: false } });
      } finally {
        await client.close();
      }
    });

    it('serves the Server Card and the AI Catalog, valid against their schemas, with ETag/304', async () => {
      const res = await fetch(`${running.url}/mcp/server-card`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/mcp-server-card+json');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const card = await res.json();
      expect(cardErrors(card)).toEqual([]);
      expect(card).toMatchObject({
        name: 'test.mcplite/runtimes',
        remotes: [{ url: `${running.url}/mcp` }, {}],
      });
      const etag = res.headers.get('etag') ?? '';
      const cached = await fetch(`${running.url}/mcp/server-card`, { headers: { 'if-none-match': etag } });
      expect(cached.status).toBe(304);
      const catalog = (await (await fetch(`${running.url}/.well-known/ai-catalog.json`)).json()) as {
        entries: { url: string }[];
      };
      expect(catalogErrors(catalog)).toEqual([]);
      expect(catalog.entries.map((e) => e.url)).toEqual([
        `${running.url}/mcp/server-card`,
        `${running.url}/secure/mcp/server-card`,
      ]);
    });

    it('refuses bad arguments with the same invalid_params on every runtime', async () => {
      const client = await connect(`${running.url}/mcp-lite/v1/`, { timeout: CALL_TIMEOUT_MS });
      try {
        const error = (await client.call('greet', { nam: 'Ann' }).then(
          () => undefined,
          (err: unknown) => err,
        )) as McpLiteError;
        expect(error).toMatchObject({
          code: 'invalid_params',
          message: "Invalid arguments: 'name' is required",
        });
        expect(error.data).toMatchObject({
          errors: [
            { field: 'name', message: 'is required' },
            { field: 'nam', message: 'is not an allowed property' },
          ],
        });
        const tooShort = (await client.call('greet', { name: '' }).then(
          () => undefined,
          (err: unknown) => err,
        )) as McpLiteError;
        expect(tooShort.data).toMatchObject({
          errors: [{ field: 'name', message: 'must NOT have fewer than 1 characters', expected: 1 }],
        });
      } finally {
        await client.close();
      }
    });

    it('streams partial results over SSE', async () => {
      const client = await connect(`${running.url}/mcp-lite/v1/`, { timeout: CALL_TIMEOUT_MS });
      try {
        const events: unknown[] = [];
        for await (const event of client.stream('count', {}))
          events.push(event.type === 'partial' ? event.value : event);
        expect(events.slice(0, 3)).toEqual([1, 2, 3]);
        expect(events[3]).toMatchObject({ type: 'answer', value: 'done' });
      } finally {
        await client.close();
      }
    });

    it('makes a promise and redeems it after the response that made it was sent', async () => {
      const client = await connect(`${running.url}/mcp-lite/v1/`, { timeout: CALL_TIMEOUT_MS });
      try {
        const promise = await client.call('slow_sum', { a: 2, b: 3 }, { redeem: false });
        expect(promise.type).toBe('promise');
        const token = (promise as { token: string }).token;
        // Asked only once the work is due to be over: on Workers it ran on through waitUntil alone.
        await new Promise((resolve) => setTimeout(resolve, 700));
        expect(await client.redeem(token, { redeem: false })).toMatchObject({
          type: 'answer',
          value: { sum: 5 },
        });
      } finally {
        await client.close();
      }
    });

    it('signs an elicitation, verifies the answer and refuses it a second time', async () => {
      const client = await connect(`${running.url}/mcp-lite/v1/`, { timeout: CALL_TIMEOUT_MS });
      try {
        const asked = await client.call('confirm_order', { item: 'tea' });
        expect(asked).toMatchObject({ type: 'elicitation', message: 'Which size of tea?' });
        if (asked.type !== 'elicitation') return;
        // An answer outside the schema burns nothing: the same state is answered correctly next.
        await expect(asked.answer({ size: 'XXL' })).rejects.toMatchObject({ code: 'invalid_params' });
        expect(await asked.answer({ size: 'M' })).toMatchObject({
          type: 'answer',
          value: 'Ordered tea in M',
        });
        // The state answers one call only (HMAC and digests made without node:crypto on plain Workers).
        await expect(asked.answer({ size: 'M' })).rejects.toMatchObject({ code: 'invalid_params' });
      } finally {
        await client.close();
      }
    });

    it('answers stateless MCP (2026-07-28) tools/list and tools/call', async () => {
      const client = await connect(`${running.url}/mcp`, {
        timeout: CALL_TIMEOUT_MS,
        mcpRevision: 'stateless',
      });
      try {
        expect((await client.listTools()).map((t) => t.name)).toEqual(
          expect.arrayContaining(['greet', 'slow_sum']),
        );
        expect(await client.call('greet', { name: 'Bo', greeting: 'Hi' })).toMatchObject({
          type: 'answer',
          value: 'Hi, Bo!',
        });
        // On MCP, arguments that fail the schema are a tool execution error, which the client raises as the
        // error the MCP-lite wires answer with.
        await expect(client.call('greet', {})).rejects.toMatchObject({
          code: 'invalid_params',
          message: "Invalid arguments: 'name' is required",
        });
      } finally {
        await client.close();
      }
    });

    // On a Worker the POST's message is handed to the GET's request, the only one that may write its stream.
    it('serves MCP legacy HTTP+SSE to the official SDK: GET /sse streams, POST /messages answers', async () => {
      const client = new Client({ name: 'runtimes', version: '1.0.0' });
      await client.connect(new SSEClientTransport(new URL(`${running.url}/sse`)));
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('greet');
        expect(await client.callTool({ name: 'greet', arguments: { name: 'Di' } })).toMatchObject({
          content: [{ type: 'text', text: 'Hello, Di!' }],
        });
      } finally {
        await client.close();
      }
    });

    it('answers health and the protected resource metadata, and refuses a foreign Host', async () => {
      const health = await fetch(`${running.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok' });
      expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
      const metadata = await fetch(`${running.url}/.well-known/oauth-protected-resource/secure/mcp`);
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toMatchObject({
        resource: 'http://127.0.0.1/secure/mcp',
        authorization_servers: ['https://auth.runtimes.test/'],
      });
      expect((await fetch(`${running.url}/secure/mcp`, { method: 'POST' })).status).toBe(401);
      expect(await statusWithHost(`${running.url}/healthz`, 'attacker.example')).toBe(403);
    });

    it('serves Webtools: metadata, execution and the schema error', async () => {
      const client = await connect(`${running.url}/webtools/runtimes/`, { timeout: CALL_TIMEOUT_MS });
      try {
        expect((await client.listTools()).map((t) => t.name)).toEqual(expect.arrayContaining(['greet']));
        expect(await client.call('greet', { name: 'Cy' })).toMatchObject({
          type: 'answer',
          value: 'Hello, Cy!',
        });
        const error = (await client.call('greet', { name: 7 }).then(
          () => undefined,
          (err: unknown) => err,
        )) as McpLiteError;
        expect(error).toMatchObject({
          code: 'invalid_params',
          message: "Invalid arguments: 'name' must be of type string",
        });
      } finally {
        await client.close();
      }
    });
  });
}

/** The status of a GET that names `host` in its Host header (fetch does not let a caller set it). */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
