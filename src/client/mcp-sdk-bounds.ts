import type { ChildProcess } from 'node:child_process';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpLiteError } from '../core/errors.js';
import { authError } from './auth-challenge.js';
import { endWithProcess } from './child-reaper.js';
import { type HttpFetch, readResponseText } from './http-fetch.js';
import { boundExceeded, type ClientLimits } from './limits.js';

/** What the bounded SDK wires report: a bound broken (the connection's calls then fail), an auth refusal. */
export interface SdkWireHooks {
  onBoundExceeded(err: McpLiteError): void;
  onDenied?(err: McpLiteError): void;
}

/**
 * The `fetch` given to the SDK's Streamable HTTP transport, which reads bodies whole (`response.json()`) and
 * SSE events of any size: each body comes back bounded (a JSON body to `maxResponseBytes`; an SSE body to
 * `maxResponseBytes` per event and, for a POST's stream, `maxStreamBytes` in all). A 401 or 403 is read here, as
 * the SDK keeps only the status, so its challenge reaches the caller (`onDenied`).
 */
export function boundedSdkFetch(limits: ClientLimits, hooks: SdkWireHooks, send: HttpFetch = fetch) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const res = await send(url, init ?? {});
    if (res.status === 401 || res.status === 403) {
      const text = await readResponseText(res, limits.maxResponseBytes);
      const denied = authError(res.status, res.headers, text);
      if (denied) hooks.onDenied?.(denied);
      return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    if (!res.body) return res;
    const sse = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
    const posted = (init?.method ?? 'GET').toUpperCase() === 'POST';
    const body = res.body.pipeThrough(
      sse
        ? sseBound(limits.maxResponseBytes, posted ? limits.maxStreamBytes : Number.POSITIVE_INFINITY, hooks)
        : sizeBound(limits.maxResponseBytes),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** A body cut off (as an error) past `limit` bytes. */
function sizeBound(limit: number): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  return new TransformStream({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > limit) controller.error(boundExceeded('maxResponseBytes', limit));
      else controller.enqueue(chunk);
    },
  });
}

/**
 * An SSE body cut off when one event (the bytes since the last blank line) passes `eventLimit` or the body
 * passes `totalLimit`. The SDK swallows a stream's error (it only reconnects), so the hooks are told, and the
 * calls waiting on this connection end with the error rather than at their deadline.
 */
function sseBound(eventLimit: number, totalLimit: number, hooks: SdkWireHooks) {
  let total = 0;
  let event = 0;
  let line = 0;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      total += chunk.byteLength;
      for (const byte of chunk) {
        if (byte === 0x0a) {
          if (line === 0) event = 0;
          line = 0;
        } else if (byte !== 0x0d) {
          line++;
          event++;
        }
      }
      const err =
        total > totalLimit
          ? boundExceeded('maxStreamBytes', totalLimit)
          : event > eventLimit
            ? boundExceeded('maxResponseBytes', eventLimit)
            : undefined;
      if (!err) return controller.enqueue(chunk);
      hooks.onBoundExceeded(err);
      controller.error(err);
    },
  });
}

/**
 * The SDK's stdio transport with its child's output bounded: one line (one JSON-RPC message) past
 * `maxResponseBytes` ends the connection (the SDK would buffer it whole, whatever its size), and the calls
 * waiting on it end with the error.
 */
export class BoundedStdioTransport extends StdioClientTransport {
  constructor(
    params: ConstructorParameters<typeof StdioClientTransport>[0],
    private readonly limit: number,
    private readonly hooks: SdkWireHooks,
  ) {
    super(params);
  }

  /** Messages sent in this turn, written together at its end (`send`). */
  private outbox: string[] = [];
  private flushed: Promise<void> | undefined;

  /**
   * Sends one message, written with the others sent in the same turn as one write: calls in flight are answered
   * together and send their next requests together, and a write each (a system call, and the child woken for
   * each) cost the loop more than the SDK's own work on a message.
   */
  override send(message: Parameters<StdioClientTransport['send']>[0]): Promise<void> {
    const child = (this as unknown as { _process?: ChildProcess })._process;
    if (!child?.stdin) return Promise.reject(new Error('Not connected'));
    this.outbox.push(`${JSON.stringify(message)}\n`);
    this.flushed ??= new Promise<void>((resolve) => {
      setImmediate(() => {
        const text = this.outbox.join('');
        this.outbox = [];
        this.flushed = undefined;
        if (!child.stdin || child.stdin.destroyed || child.stdin.write(text)) resolve();
        else child.stdin.once('drain', resolve);
      });
    });
    return this.flushed;
  }

  override async start(): Promise<void> {
    await super.start();
    // The SDK keeps the child private; its stdout is the one stream whose growth must be watched.
    const child = (this as unknown as { _process?: ChildProcess })._process;
    // The child must not outlive this process, whichever way it ends (see child-reaper.ts).
    if (child) endWithProcess(child);
    let line = 0;
    const watch = (chunk: Buffer) => {
      const first = chunk.indexOf(0x0a);
      const ended = first < 0 ? 0 : line + first;
      line = first < 0 ? line + chunk.length : chunk.length - chunk.lastIndexOf(0x0a) - 1;
      if (line <= this.limit && ended <= this.limit) return;
      child?.stdout?.off('data', watch);
      this.hooks.onBoundExceeded(boundExceeded('maxResponseBytes', this.limit));
      void this.close().catch(() => {});
    };
    child?.stdout?.prependListener('data', watch);
  }
}
