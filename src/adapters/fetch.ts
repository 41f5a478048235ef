import { McpLiteError } from '../core/errors.js';
import type { NeutralHandler, NeutralRequest, NeutralResponse } from '../core/http.js';
import { readBoundedBytes } from '../core/read-bounded.js';
import { runningWork } from '../core/running-work.js';

/**
 * The fetch adapter: `Request -> Response`, for Workers, Bun, Deno, Next route handlers, Hono and anything else
 * that speaks web types.
 */

class FetchRequest implements NeutralRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  private signalOfCall: AbortSignal | undefined;
  private readonly responseCancelled = new AbortController();

  constructor(private readonly request: Request) {
    this.method = request.method.toUpperCase();
    const url = new URL(request.url);
    this.path = url.pathname;
    this.query = url.search.slice(1);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    this.headers = headers;
  }

  /**
   * Aborts when the runtime aborts the request or the client cancels the streamed response: not every runtime
   * aborts `request.signal` on a hang-up, but every one cancels the response body.
   */
  get signal(): AbortSignal {
    this.signalOfCall ??= AbortSignal.any([this.request.signal, this.responseCancelled.signal]);
    return this.signalOfCall;
  }

  /** The client cancelled the response body. */
  cancelled(): void {
    this.responseCancelled.abort(new McpLiteError('cancelled', 'The client went away'));
  }

  async readBody(limit: number): Promise<Uint8Array> {
    return readBoundedBytes(this.request, limit, () => tooLarge(limit));
  }
}

function tooLarge(limit: number): McpLiteError {
  return new McpLiteError('payload_too_large', `Payload Too Large: the body exceeds ${limit} bytes`, {
    limit,
  });
}

const encoder = new TextEncoder();

/** How the platform keeps work going after a response is sent: Cloudflare's `ctx.waitUntil` and its kin. */
export type WaitUntil = (work: Promise<unknown>) => void;

/** Options of `toFetchHandler`. */
export interface FetchHandlerOptions {
  /**
   * Keeps promised work running after the response that made the promise is sent, on platforms that stop a
   * request's work then (Cloudflare Workers: `waitUntil` from `cloudflare:workers`; Vercel: from
   * `@vercel/functions`). Not needed where the handler is given the Workers `ctx` as third argument (its
   * `waitUntil` is used), nor on Node, Bun and Deno, which run work to its end anyway.
   */
  waitUntil?: WaitUntil;
}

/** The Workers execution context (`fetch(request, env, ctx)`), as far as this adapter uses it. */
export interface FetchExecutionContext {
  waitUntil(work: Promise<unknown>): void;
}

/** A fetch handler: Workers call it with `(request, env, ctx)`, Bun and Deno with `(request, server or info)`. */
export type FetchHandler = (
  request: Request,
  env?: unknown,
  ctx?: FetchExecutionContext | undefined,
) => Promise<Response>;

/**
 * Turns a neutral handler into a fetch handler; unmatched paths get a JSON 404. Promised work still running when
 * a response leaves is handed to the platform's `waitUntil` (the option, else the Workers `ctx`), so that it
 * outlives the response (docs/runtimes.md).
 */
export function toFetchHandler(handler: NeutralHandler, options: FetchHandlerOptions = {}): FetchHandler {
  return async (request, _env, ctx) => {
    const waitUntil: WaitUntil | undefined =
      options.waitUntil ?? (typeof ctx?.waitUntil === 'function' ? (work) => ctx.waitUntil(work) : undefined);
    const keepRunning = () => {
      const work = waitUntil && runningWork();
      if (work) waitUntil(work);
    };
    const neutral = new FetchRequest(request);
    let response: NeutralResponse | undefined;
    try {
      response = await handler(neutral);
    } finally {
      keepRunning();
    }
    if (!response) {
      return Response.json(
        { jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Not found' } },
        { status: 404 },
      );
    }
    const { body } = response;
    if (body === undefined || typeof body === 'string' || body instanceof Uint8Array) {
      return new Response(body as BodyInit | undefined, {
        status: response.status,
        headers: response.headers,
      });
    }
    const iterator = body[Symbol.asyncIterator]();
    // Pull-based: the next chunk is produced only when the consumer asks, which carries backpressure through.
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const step = await iterator.next();
        if (step.done) {
          // A streamed call may have become a promise while it streamed.
          keepRunning();
          controller.close();
        } else controller.enqueue(typeof step.value === 'string' ? encoder.encode(step.value) : step.value);
      },
      cancel() {
        neutral.cancelled();
        keepRunning();
        // Not awaited: an async generator's return() waits behind a pending next(), which may never come.
        iterator.return?.()?.then(undefined, () => {});
      },
    });
    return new Response(stream, { status: response.status, headers: response.headers });
  };
}
