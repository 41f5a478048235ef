/**
 * The scale-out harness for the tests: the cluster itself (fronts, workers, HAProxy, a private Redis) is
 * scripts/scale-cluster.mjs, shared with `npm run scale-demo`; this adds the client side the tests speak, every
 * request bounded by a timeout so that a missing feature fails a test instead of hanging it.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export * from '../../scripts/scale-cluster.mjs';

/** A decoded JSON-RPC response. */
export interface RpcResponse {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: Record<string, any>;
  error?: { code: number; message: string; data?: any };
}

/** An HTTP answer: its status and its JSON body (or text when it is not JSON). */
export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

let nextId = 1;

/** POSTs JSON and decodes the answer, failing after `timeoutMs`. */
export async function postJson(
  url: string,
  message: unknown,
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<Reply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body };
}

/** GETs a URL and decodes the JSON answer (text when not JSON), failing after `timeoutMs`. */
export async function getJson(url: string, timeoutMs = 5000): Promise<Reply> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body };
}

/** An MCP-lite `tools/call` over HTTP (`rpcUrl` is …/mcp-lite/v1/rpc); the reply keeps its HTTP status. */
export async function callTool(
  rpcUrl: string,
  name: string,
  args: unknown,
  extra: Record<string, unknown> = {},
  timeoutMs = 10_000,
): Promise<Reply<RpcResponse>> {
  return postJson(
    rpcUrl,
    { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args, ...extra } },
    {},
    timeoutMs,
  );
}

/** The promise token of a promise result; throws with the whole reply otherwise. */
export function tokenOf(reply: Reply<RpcResponse>): string {
  const token = reply.body?.result?._meta?.promise_token;
  if (reply.body?.result?._meta?.response_type !== 'promise' || typeof token !== 'string') {
    throw new Error(`expected a promise, got HTTP ${reply.status}: ${JSON.stringify(reply.body)}`);
  }
  return token;
}

/** The `_meta.response_type` of a reply's result (or `error <code>`). */
export function kindOf(reply: Reply<RpcResponse>): string {
  if (reply.body?.error) return `error ${reply.body.error.code}`;
  return String(reply.body?.result?._meta?.response_type);
}

/** `redeem` a promise on one front, waiting up to `waitMs` for the work. */
export function redeem(rpcUrl: string, token: string, waitMs = 0): Promise<Reply<RpcResponse>> {
  return callTool(
    rpcUrl,
    'redeem',
    { promise: token, ...(waitMs > 0 ? { wait_ms: waitMs } : {}) },
    {},
    waitMs + 10_000,
  );
}

/** `cancel` a promise on one front. */
export function cancel(rpcUrl: string, token: string): Promise<Reply<RpcResponse>> {
  return callTool(rpcUrl, 'cancel', { promise: token });
}

/**
 * Redeems until the promise settles (each redeem waits up to `waitMs`), failing after `timeoutMs` with the last
 * reply. The fronts are used in turn when several are given.
 */
export async function redeemSettled(
  rpcUrls: string[],
  token: string,
  timeoutMs = 20_000,
  waitMs = 2000,
): Promise<Reply<RpcResponse>> {
  const until = Date.now() + timeoutMs;
  let last: Reply<RpcResponse> | undefined;
  for (let i = 0; Date.now() < until; i++) {
    const url = rpcUrls[i % rpcUrls.length]!;
    last = await redeem(url, token, Math.min(waitMs, Math.max(0, until - Date.now())));
    if (kindOf(last) !== 'promise') return last;
  }
  throw new Error(`promise ${token} still pending after ${timeoutMs} ms: ${JSON.stringify(last?.body)}`);
}

/** Runs `fn` over `items`, at most `limit` at a time, keeping the order of the results. */
export async function mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  });
  await Promise.all(lanes);
  return out;
}

/** Polls `check` until it returns a truthy value (returned), failing after `timeoutMs` with `what`. */
export async function waitFor<T>(check: () => Promise<T> | T, timeoutMs: number, what: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  let lastErr: unknown;
  while (Date.now() < until) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      lastErr = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${lastErr ? `: ${String(lastErr)}` : ''}`,
  );
}

/** The MCP headers of a handshake-revision request (with the session once there is one). */
export function mcpHeaders(
  session?: string,
  accept = 'application/json, text/event-stream',
): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept,
    'mcp-protocol-version': '2025-11-25',
    ...(session ? { 'mcp-session-id': session } : {}),
  };
}

/** An SSE response read event by event, across several waits (the stream stays open between them). */
export class EventStream {
  private readonly queue: EventSourceMessage[] = [];
  private readonly parser;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private ended = false;

  constructor(
    res: Response,
    private readonly abort?: AbortController,
  ) {
    this.parser = createParser({ onEvent: (e) => this.queue.push(e) });
    this.reader = res.body!.getReader();
  }

  /**
   * The events up to and including the first that satisfies `stop` (all that came, if the stream ends or
   * `timeoutMs` passes first); later events stay for the next call.
   */
  async until(
    stop: (event: EventSourceMessage) => boolean,
    timeoutMs = 10_000,
  ): Promise<EventSourceMessage[]> {
    const out: EventSourceMessage[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.queue.length > 0) {
        const e = this.queue.shift()!;
        out.push(e);
        if (stop(e)) return out;
      }
      if (this.ended || Date.now() >= deadline) return out;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), deadline - Date.now());
      });
      const read = await Promise.race([
        this.reader.read().catch(() => ({ done: true, value: undefined })),
        timeout,
      ]);
      clearTimeout(timer);
      if (read === 'timeout') return out;
      if (read.done) this.ended = true;
      else this.parser.feed(this.decoder.decode(read.value, { stream: true }));
    }
  }

  /** Drops the stream (the connection closes). */
  close(): void {
    this.abort?.abort();
    void this.reader.cancel().catch(() => undefined);
  }
}

/** A response's SSE events, read until `stop` says so (or the stream ends, or `timeoutMs`); then closed. */
export async function readEvents(
  res: Response,
  stop: (event: EventSourceMessage) => boolean,
  timeoutMs = 10_000,
  abort?: AbortController,
): Promise<EventSourceMessage[]> {
  const stream = new EventStream(res, abort);
  try {
    return await stream.until(stop, timeoutMs);
  } finally {
    stream.close();
  }
}
