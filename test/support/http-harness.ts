/**
 * Harness for the MCP-lite HTTP binding tests: start a real server on a loopback port, POST to it with fetch,
 * speak raw HTTP over a `net` socket when fetch would refuse to send the malformed thing, and read SSE with the
 * real `eventsource-parser`.
 */
import { connect } from 'node:net';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { expect } from 'vitest';
import { createServer, type ServerOptions } from '../../src/index.js';
import { type RunningServer, type ServeOptions, serve } from '../../src/node.js';

/** A running test server and the URLs of its endpoints. */
export interface TestServer {
  running: RunningServer;
  server: ReturnType<typeof createServer>;
  port: number;
  /** http://127.0.0.1:port/mcp-lite/v1/ */
  base: string;
  /** The `rpc` endpoint. */
  rpcUrl: string;
  /** The `tools` endpoint. */
  toolsUrl: string;
  close(): Promise<void>;
}

/** Starts `createServer(options)` with `serve` on 127.0.0.1, port 0. */
export async function startServer(
  options: ServerOptions,
  serveOptions: ServeOptions = {},
): Promise<TestServer> {
  const server = createServer(options);
  const running = await serve(server, { port: 0, ...serveOptions });
  const basePath = (serveOptions.basePath ?? '/mcp-lite/v1/').replace(/^\/?/, '/').replace(/\/?$/, '/');
  const base = `${running.url}${basePath}`;
  return {
    running,
    server,
    port: running.http.port,
    base,
    rpcUrl: `${base}rpc`,
    toolsUrl: `${base}tools`,
    close: () => running.close(1000),
  };
}

/** POSTs a JSON value (or a raw string) with `Content-Type: application/json`. */
export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

let nextId = 1;

/** A `tools/call` request with a fresh numeric id. */
export function callMessage(name: unknown, args?: unknown, extra: Record<string, unknown> = {}) {
  return {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'tools/call',
    params: { name, ...(args === undefined ? {} : { arguments: args }), ...extra },
  };
}

/** Calls a tool and returns the parsed JSON-RPC response (asserting HTTP 200). */
export async function callTool(
  url: string,
  name: string,
  args?: unknown,
  extra: Record<string, unknown> = {},
) {
  const res = await postJson(url, callMessage(name, args, extra));
  expect(res.status).toBe(200);
  return (await res.json()) as JsonRpcResponse;
}

/** A JSON-RPC response as the tests read it. */
export interface JsonRpcResponse {
  jsonrpc: string;
  id: string | number | null;
  result?: any;
  error?: { code: number; message: string; data?: any };
}

/** Asserts that the server still answers a good request (a `tools/list` over `rpc`). */
export async function expectStillServing(rpcUrl: string): Promise<void> {
  const res = await postJson(rpcUrl, { jsonrpc: '2.0', id: 'alive', method: 'tools/list' });
  expect(res.status).toBe(200);
  const body = (await res.json()) as JsonRpcResponse;
  expect(body.id).toBe('alive');
  expect(Array.isArray(body.result.tools)).toBe(true);
}

/** A raw HTTP/1.1 response as read off a socket. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `data` over a plain socket and resolves with the response once the server has sent a whole one.
 * `onConnected` may keep writing (a body that grows); its `write` stops once the response is in.
 */
export function rawRequest(
  port: number,
  data: string | Buffer,
  options: { onConnected?: (write: (chunk: string | Buffer) => boolean, isDone: () => boolean) => void } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    const settle = (fail?: string) => {
      if (done) return;
      const parsed = parseRaw(Buffer.concat(chunks).toString('latin1'));
      if (!parsed && !fail) return;
      done = true;
      socket.destroy();
      if (parsed) resolve(parsed);
      else reject(new Error(`${fail}: ${JSON.stringify(Buffer.concat(chunks).toString('latin1'))}`));
    };
    socket.on('data', (c) => {
      chunks.push(c);
      settle();
    });
    // The server may close while we still write (after a 413): what it said before is what counts.
    socket.on('error', () => settle('socket error before a whole response'));
    socket.on('close', () => settle('closed before a whole response'));
    socket.once('connect', () => {
      socket.write(data);
      options.onConnected?.(
        (chunk) => (done || socket.destroyed ? false : socket.write(chunk)),
        () => done,
      );
    });
  });
}

/** Parses a complete response (Content-Length or chunked); undefined while incomplete. */
function parseRaw(raw: string): RawResponse | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const status = Number(statusLine!.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = raw.slice(end + 4);
  const utf8 = (latin1: string) => Buffer.from(latin1, 'latin1').toString('utf8');
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    return rest.length < length ? undefined : { status, headers, body: utf8(rest.slice(0, length)) };
  }
  if (headers['transfer-encoding'] === 'chunked') {
    let body = '';
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(rest.slice(at, lineEnd), 16);
      if (size === 0) return { status, headers, body: utf8(body) };
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
      at = lineEnd + 2 + size + 2;
    }
  }
  return undefined;
}

/** Builds a raw POST request: head and (optional) body. */
export function rawPost(
  path: string,
  port: number,
  headers: Record<string, string | number>,
  body = '',
): string {
  const lines = [`POST ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** One parsed SSE event with its JSON data. */
export interface SseEvent {
  event: string;
  data: any;
}

/**
 * Reads a whole SSE response with eventsource-parser, calling `onEvent` as each event arrives (so a test can
 * act mid-stream), and resolves with every event, its data JSON-decoded, once the server ends the stream.
 */
export async function readSse(res: Response, onEvent: (e: SseEvent) => void = () => {}): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (message: EventSourceMessage) => {
      // An event without a name is a `message` event (the SSE standard's default).
      const e = { event: message.event ?? 'message', data: JSON.parse(message.data) };
      events.push(e);
      onEvent(e);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
  }
  return events;
}

/** POSTs a message asking for SSE. */
export function postSse(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return postJson(url, body, { accept: 'text/event-stream', ...headers });
}

/** Resolves once `predicate` holds, polling; rejects after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
