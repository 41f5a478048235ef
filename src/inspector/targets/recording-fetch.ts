import type { HttpFetch } from '../../client/http-fetch.js';
import type { Transport } from './transport.js';

/**
 * One round's wire exchange as it passed: the request as sent (credentials redacted) and the response as the
 * client read it. A JSON body is kept whole (the client reads no more than its bound); a stream is kept up to
 * `maxShown` characters and the rest counted, since the page shows it and an endless one must not fill memory.
 */
export class RoundRecord {
  request: { method: string; endpoint: string; headers: Record<string, string>; body: unknown } | undefined;
  /** Why no response came (the transport threw). */
  failed: string | undefined;
  status = 0;
  contentType = '';
  /** The response body as read so far (a stream: what is shown of it). */
  text = '';
  /** Characters of a stream not kept. */
  omitted = 0;
  /** Bytes of the response read in all. */
  bytes = 0;

  constructor(private readonly maxShown: number) {}

  /** True once a response arrived. */
  get answered(): boolean {
    return this.request !== undefined && this.failed === undefined && this.status > 0;
  }

  get streamed(): boolean {
    return this.contentType.startsWith('text/event-stream');
  }

  /** The body as JSON, or undefined when it is none. */
  json(): unknown {
    try {
      return JSON.parse(this.text);
    } catch {
      return undefined;
    }
  }

  take(chunk: string): void {
    if (!this.streamed) this.text += chunk;
    else if (this.text.length < this.maxShown) {
      const room = this.maxShown - this.text.length;
      this.text += chunk.slice(0, room);
      this.omitted += Math.max(0, chunk.length - room);
    } else this.omitted += chunk.length;
  }
}

/** How a recording fetch reaches the binding, per round. */
export interface RecordingOptions {
  /** Headers of this round on top of the transport's (the page's `Authorization`). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** The browser's address, for a binding in this process. */
  remoteAddress?: string | undefined;
  /** Receives the request as soon as it is sent. */
  onRequest?: ((request: unknown) => void) | undefined;
}

const encoder = new TextEncoder();

/**
 * A fetch for the client's MCP-lite HTTP transport (its per-call `fetch`) that sends through the inspector's
 * `Transport` (the network, or the binding in this process) and records the exchange in `record` as it passes.
 */
export function recordingFetch(
  transport: Transport,
  record: RoundRecord,
  options: RecordingOptions,
): HttpFetch {
  return async (url, init) => {
    const endpoint = new URL(url).pathname.split('/').pop() ?? '';
    const headers = { ...(init.headers as Record<string, string>), ...options.headers };
    const body = typeof init.body === 'string' ? init.body : '';
    record.request = { method: 'POST', endpoint, headers: redacted(headers), body: parsed(body) };
    options.onRequest?.(record.request);
    let raw: Awaited<ReturnType<Transport>>;
    try {
      raw = await transport(endpoint, body, {
        headers,
        signal: init.signal ?? undefined,
        remoteAddress: options.remoteAddress,
      });
    } catch (err) {
      record.failed = `Request failed: ${(err as Error).message}`;
      throw err;
    }
    record.status = raw.status;
    record.contentType = raw.contentType;
    const iterator = raw.body[Symbol.asyncIterator]();
    const decoder = new TextDecoder();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const step = await iterator.next();
        if (step.done) {
          record.take(decoder.decode());
          controller.close();
          return;
        }
        const bytes = typeof step.value === 'string' ? encoder.encode(step.value) : step.value;
        record.bytes += bytes.byteLength;
        record.take(decoder.decode(bytes, { stream: true }));
        controller.enqueue(bytes);
      },
      cancel() {
        iterator.return?.()?.then(undefined, () => {});
      },
    });
    const empty = raw.status === 204 || raw.status === 205 || raw.status === 304;
    return new Response(empty ? null : stream, {
      status: raw.status,
      headers: { 'content-type': raw.contentType },
    });
  };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Headers as shown on the page: a credential is never echoed back, only that one was sent. */
function redacted(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = k.toLowerCase() === 'authorization' ? 'Bearer …' : v;
  return out;
}
