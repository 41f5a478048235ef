/**
 * The inspector mounted on a demo server that requires a bearer token (`serve({ inspector: true })`): the page is
 * asked for a token, passes it to the binding, which checks it, and the credential is never echoed back. The
 * tools' MCP Apps views are read through the server's own chain as the page's principal, never as nobody.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { bearerAuth } from '../../src/core/auth.js';
import { McpLiteError } from '../../src/core/errors.js';
import type { Operation } from '../../src/core/operation.js';
import { createServer } from '../../src/create-server.js';
import { type RunningServer, serve } from '../../src/serve.js';
import { events, send } from './inspector.fixtures.js';

describe('inspector mounted on a server that requires a bearer token', () => {
  let running: RunningServer;
  let port: number;
  let token: string;
  /** Who each `resources/read` that reached the chain came from: the binding and the principal. */
  const reads: string[] = [];

  beforeAll(async () => {
    const server = createServer({
      ...serverOptions,
      tools,
      authenticate: bearerAuth(['s3cret-token', 'other-token']),
      middleware: [
        (op: Operation, next) => {
          if (op.method !== 'resources/read') return next();
          reads.push(`${op.caller.binding} ${op.caller.principal?.id} ${op.name}`);
          if (op.caller.principal?.id === 'bearer-1')
            throw new McpLiteError('forbidden', 'Forbidden: refused by the chain');
          return next();
        },
      ],
    });
    running = await serve(server, { port: 0, inspector: true });
    port = (running.http.server.address() as AddressInfo).port;
    token = new URL(running.inspectorUrl!).searchParams.get('token')!;
  });
  afterAll(async () => {
    await running?.close(500);
  });

  it('asks the page for a token and passes it to the binding, which checks it', async () => {
    const headers = { 'x-mcplite-inspector': token, 'content-type': 'application/json' };
    const info = JSON.parse((await send(port, 'GET', '/inspector/api/info', headers)).body);
    expect(info).toMatchObject({ binding: 'mcp-lite-http', requiresToken: true });
    const body = JSON.stringify({ tool: 'echo', arguments: { message: 'x' }, stream: false });
    const refused = events((await send(port, 'POST', '/inspector/api/call', headers, body)).body).at(
      -1,
    )!.data;
    expect(refused.outcome.error).toMatchObject({ code: -32002, status: 401 });
    const wrong = { ...headers, authorization: 'Bearer nope' };
    expect(
      events((await send(port, 'POST', '/inspector/api/call', wrong, body)).body).at(-1)!.data.outcome.type,
    ).toBe('error');
    const right = { ...headers, authorization: 'Bearer s3cret-token' };
    const answered = events((await send(port, 'POST', '/inspector/api/call', right, body)).body);
    expect(answered.at(-1)!.data.outcome).toMatchObject({ type: 'answer', result: { message: 'x' } });
    // The credential is never echoed in the exchange the page shows.
    expect(JSON.stringify(answered)).not.toContain('s3cret-token');
  });

  it("reads the tools' views through the chain as the page's principal, and never without one", async () => {
    const headers = { 'x-mcplite-inspector': token, 'content-type': 'application/json' };
    const body = JSON.stringify({ uri: 'ui://mcplite-demo/documents' });
    const view = (extra: Record<string, string> = {}) =>
      send(port, 'POST', '/inspector/api/view', { ...headers, ...extra }, body);
    const anonymous = await view();
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.body).error.code).toBe('unauthenticated');
    expect((await view({ authorization: 'Bearer nope' })).status).toBe(401);
    expect(reads).toEqual([]);
    const served = await view({ authorization: 'Bearer s3cret-token' });
    expect(served.status).toBe(200);
    const { path } = JSON.parse(served.body) as { path: string };
    const page = await send(port, 'GET', `/inspector/${path}`, { 'x-mcplite-inspector': token });
    expect(page.status).toBe(200);
    expect(page.body).toContain('id="hits"');
    // The chain saw the read, as the principal the page's token names; it refuses the other principal.
    expect((await view({ authorization: 'Bearer other-token' })).status).toBe(403);
    expect(reads).toEqual([
      'inspector bearer-0 ui://mcplite-demo/documents',
      'inspector bearer-1 ui://mcplite-demo/documents',
    ]);
  });
});
