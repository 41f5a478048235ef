import { McpLiteError } from '../../core/errors.js';
import type { NeutralHandler, NeutralRequest } from '../../core/http.js';

/** An HTTP response as the MCP-lite HTTP target reads it: status, content type and the body as it arrives. */
export interface RawResponse {
  status: number;
  contentType: string;
  body: AsyncIterable<Uint8Array | string>;
}

/** How one request is sent. */
export interface SendOptions {
  headers: Readonly<Record<string, string>>;
  signal?: AbortSignal | undefined;
  /** The browser's address, for a binding in the same process (its per-caller quotas count against it). */
  remoteAddress?: string | undefined;
}

/** Sends one POST with a JSON body to an endpoint (a path relative to the binding's base) and returns the answer. */
export type Transport = (endpoint: string, body: string, options: SendOptions) => Promise<RawResponse>;

/**
 * A transport over the network, with fetch: for `mcplite inspect http://…/mcp-lite/v1/`. `send` is the fetch to
 * use (the client's OAuth session wraps it for a protected server).
 */
export function fetchTransport(
  baseUrl: string,
  send: (url: URL, init: RequestInit) => Promise<Response> = fetch,
): Transport {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  return async (endpoint, body, { headers, signal }) => {
    const response = await send(new URL(endpoint, base), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      ...(signal ? { signal } : {}),
      redirect: 'error',
    });
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body: response.body ? (response.body as unknown as AsyncIterable<Uint8Array>) : emptyBody(),
    };
  };
}

/**
 * A transport that hands the request to a binding in the same process, as a neutral request: for `mcplite serve
 * --inspector`, where the inspector is mounted on the server it inspects. The request goes through the real
 * binding (authentication, validation, SSE), so what the page shows is exactly what a network client gets.
 */
export function handlerTransport(handler: NeutralHandler, basePath: string): Transport {
  const base = basePath.endsWith('/') ? basePath : `${basePath}/`;
  return async (endpoint, body, { headers, signal, remoteAddress }) => {
    const bytes = new TextEncoder().encode(body);
    const request: NeutralRequest = {
      method: 'POST',
      path: `${base}${endpoint}`,
      headers: { host: 'localhost', 'content-type': 'application/json', ...lowerCased(headers) },
      readBody: (limit) =>
        bytes.byteLength > limit
          ? Promise.reject(new McpLiteError('payload_too_large', `Payload Too Large: over ${limit} bytes`))
          : Promise.resolve(bytes),
      signal: signal ?? new AbortController().signal,
      remoteAddress,
    };
    const response = await handler(request);
    if (!response) return { status: 404, contentType: 'text/plain', body: oneChunk('Not found') };
    const answer = response.body;
    return {
      status: response.status,
      contentType: response.headers['content-type'] ?? '',
      body:
        answer === undefined
          ? emptyBody()
          : typeof answer === 'string' || answer instanceof Uint8Array
            ? oneChunk(answer)
            : answer,
    };
  };
}

function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}

async function* oneChunk(chunk: string | Uint8Array): AsyncIterable<string | Uint8Array> {
  yield chunk;
}

async function* emptyBody(): AsyncIterable<Uint8Array> {}
