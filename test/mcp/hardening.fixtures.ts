/**
 * Shared setup of the MCP hardening tests (`hardening-*.test.ts`, the attacks of issue 9 over Streamable HTTP): a
 * heap probe, the tools the attacks call, a server with small bounds and bearer tokens, and the request helpers.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { bearerAuth, createServer, defineTool, elicit } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap in use after a full collection, in MiB. */
export function heapMiB(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1048576;
}

const TASKS = 'io.modelcontextprotocol/tasks';
/** One MiB of text, the size of the original attacks' fields. */
export const MiB = 'x'.repeat(1024 * 1024);
/** Half a MiB of text. */
export const HALF = MiB.slice(0, 512 * 1024);

const tools = [
  defineTool({ name: 'echo', handler: (a) => a }),
  defineTool({
    name: 'slow_task',
    longRunning: { estimatedMs: 5000 },
    handler: async (_a, ctx) => {
      await new Promise((r) => setTimeout(r, 5000));
      return ctx.signal.aborted ? 'aborted' : 'done';
    },
  }),
  defineTool({
    name: 'quick_task',
    longRunning: { estimatedMs: 10 },
    handler: () => 'done',
  }),
  defineTool({
    name: 'greet',
    handler: (args: { name?: string }, ctx) => {
      const who = args.name ?? (ctx.elicitation?.answers as { name?: string } | undefined)?.name;
      if (!who) {
        return elicit({
          message: 'Whom should I greet?',
          schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        });
      }
      return `Hello, ${who}!`;
    },
  }),
];

/** A server with small bounds, bearer tokens a, b, c (principals bearer-0, -1, -2) unless `auth` is false. */
export async function start(
  mcp: Record<string, unknown>,
  server: Record<string, unknown> = {},
  auth = true,
): Promise<{ running: RunningServer; url: string }> {
  const running = await serve(
    createServer({ tools, ...(auth ? { authenticate: bearerAuth(['a', 'b', 'c']) } : {}), ...server }),
    { port: 0, mcp, maxBodyBytes: 8 * 1024 * 1024 },
  );
  return { running, url: `${running.url}/mcp` };
}

/** What `post` gives back: the HTTP status, the Mcp-Session-Id header and the parsed body. */
export interface Reply {
  status: number;
  session: string | null;
  json: any;
}

let lastId = 0;

/** A fresh JSON-RPC request id (1, 2, 3, … across the calling test file). */
export function nextId(): number {
  return ++lastId;
}

/** POSTs one message; `token` sends a bearer token, `session` an Mcp-Session-Id (with its revision). */
export async function post(
  url: string,
  message: Record<string, unknown>,
  opts: { token?: string; session?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.session ? { 'mcp-session-id': opts.session, 'mcp-protocol-version': '2025-06-18' } : {}),
      ...opts.headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  const text = await res.text();
  return {
    status: res.status,
    session: res.headers.get('mcp-session-id'),
    json: text ? JSON.parse(text) : {},
  };
}

/** Opens a session (2025-06-18) with `initialize`; `params` overrides its params, e.g. clientInfo. */
export function initialize(
  url: string,
  token?: string,
  params: Record<string, unknown> = {},
): Promise<Reply> {
  return post(
    url,
    {
      id: nextId(),
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
        ...params,
      },
    },
    { token },
  );
}

/** Pings on `session` (with bearer `token` if given). */
export function ping(url: string, session: string, token?: string): Promise<Reply> {
  return post(url, { id: nextId(), method: 'ping' }, { token, session });
}

/** A stateless (2026-07-28) request with its routing headers; `tasks` declares the tasks extension. */
export function stateless(
  url: string,
  method: string,
  params: Record<string, unknown>,
  opts: { token?: string; tasks?: boolean; elicitation?: boolean } = {},
): Promise<Reply> {
  const name = method.startsWith('tasks/') ? params.taskId : params.name;
  const caps = {
    ...(opts.tasks ? { extensions: { [TASKS]: {} } } : {}),
    ...(opts.elicitation ? { elicitation: {} } : {}),
  };
  return post(
    url,
    {
      id: nextId(),
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': caps,
        },
      },
    },
    {
      token: opts.token,
      headers: {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      },
    },
  );
}
