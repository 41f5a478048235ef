import SwaggerParser from '@apidevtools/swagger-parser';
import { McpLiteError } from '../core/errors.js';
import { failure } from '../core/outcomes.js';
import { printable } from '../core/printable.js';
import type { ToolDefinition } from '../core/tool.js';
import { boundedDocumentReader } from './openapi-document.js';
import { inputOf, type Json, outputOf, type Placement } from './openapi-schema.js';
import { readBounded } from './read-bounded.js';

/** Options of `openApiTools`. */
export interface OpenApiOptions {
  /**
   * Where the API answers. Default: the document's first `servers` URL (resolved against the document's URL
   * when it was fetched); required when the document has none. A document fetched by URL may not send `headers`
   * to another origin than its own: give `baseUrl` for that (the credentials go only where they were configured).
   */
  baseUrl?: string;
  /** Headers sent with every request (an API key, `Authorization: Bearer …`); never listed, never logged. */
  headers?: Record<string, string>;
  /** Only operations with one of these tags, or whose path starts with one of these (a string starting `/`). */
  include?: string[];
  /** Never operations with one of these tags, or whose path starts with one of these. */
  exclude?: string[];
  /** Bytes of one response body at most (default 16 MiB): past it the call fails with `payload_too_large`. */
  maxResponseBytes?: number;
  /**
   * How long one request may take (default 30 000 ms): past it the call fails with `deadline_exceeded`. Fetching
   * the document (and each file its `$ref`s name), at most 16 MiB each, has the same bound.
   */
  timeoutMs?: number;
  /** Most tools made (default 1000): the operations past it are left out, so a huge document stays bounded. */
  maxTools?: number;
  /** The fetch to send requests with (default the global one). */
  fetch?: typeof fetch;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

/**
 * Tools from an OpenAPI 3.x document, one per operation: named by its `operationId` (else method and path), its
 * input schema built from its path, query and header parameters and its JSON request body (property `body`),
 * its description from its summary and description, its output schema from its JSON 2xx response when that is an
 * object. A call sends the HTTP request and answers with the JSON (or text) of a 2xx; a 4xx or 5xx is a failure
 * outcome whose code is `http_<status>` and whose details carry the status and the body.
 *
 * `document`: the document itself, a file path or an http(s) URL. `$ref`s are resolved by
 * `@apidevtools/swagger-parser`, which also validates the document; external references are followed only where
 * the document itself came from (a fetched document never reads local files, a given object reads nothing).
 */
export async function openApiTools(
  document: string | object,
  options: OpenApiOptions = {},
): Promise<ToolDefinition[]> {
  const fromUrl = typeof document === 'string' && /^https?:\/\//i.test(document);
  const fromFile = typeof document === 'string' && !fromUrl;
  const send = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const reader = fromUrl ? boundedDocumentReader(timeoutMs, send) : undefined;
  let api: Json;
  try {
    api = (await SwaggerParser.validate(
      typeof document === 'string' ? document : (structuredClone(document) as never),
      {
        resolve: {
          external: typeof document === 'string',
          ...(fromFile ? {} : { file: false }),
          http: false,
          ...(reader ? { bounded: reader } : {}),
        } as never,
        dereference: { circular: 'ignore' },
      },
    )) as unknown as Json;
  } catch (err) {
    throw new McpLiteError(
      'config_invalid',
      `Invalid OpenAPI document: ${firstLine(reader?.failure ?? err)}`,
    );
  }
  if (typeof api.openapi !== 'string' || !api.openapi.startsWith('3.'))
    throw new McpLiteError('config_invalid', 'Not an OpenAPI 3.x document (Swagger 2.0 is not supported)');
  const base = baseUrlOf(api, options.baseUrl, fromUrl ? (document as string) : undefined);
  const headers = options.headers ?? {};
  if (fromUrl && options.baseUrl === undefined && Object.keys(headers).length > 0) {
    const own = new URL(document as string).origin;
    if (base.origin !== own)
      throw new McpLiteError(
        'config_invalid',
        `The OpenAPI document from ${own} names a server at ${base.origin}: its headers go only to the document's origin unless baseUrl names another`,
      );
  }
  const maxBytes = options.maxResponseBytes ?? 16 * 1024 * 1024;
  const maxTools = options.maxTools ?? 1000;
  const taken = new Set<string>();
  const tools: ToolDefinition[] = [];
  for (const [path, item] of Object.entries((api.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation || tools.length >= maxTools) continue;
      if (!selected(path, operation, options)) continue;
      const shared = (item.parameters ?? []) as Json[];
      const own = (operation.parameters ?? []) as Json[];
      const { schema, placements } = inputOf([...shared, ...own], operation.requestBody as Json | undefined);
      const name = uniqueName(toolName(method, path, operation), taken);
      const output = outputOf(operation);
      const description = [operation.summary, operation.description]
        .filter((s): s is string => typeof s === 'string' && s.length > 0)
        .join('\n\n');
      tools.push({
        name,
        description: printable(description || `${method.toUpperCase()} ${path}`),
        inputSchema: schema,
        ...(output ? { outputSchema: output } : {}),
        annotations: {
          readOnlyHint: method === 'get' || method === 'head' || method === 'options',
          openWorldHint: true,
        },
        handler: async (args: Record<string, unknown>, ctx) => {
          const request = buildRequest(base, path, placements, args, headers);
          const limit = new AbortController();
          const onAbort = () => limit.abort(ctx.signal.reason);
          ctx.signal.addEventListener('abort', onAbort, { once: true });
          const timer = setTimeout(() => limit.abort(new DOMException('timeout', 'TimeoutError')), timeoutMs);
          try {
            const res = await send(request.url, {
              method: method.toUpperCase(),
              headers: request.headers,
              ...(request.body !== undefined ? { body: request.body } : {}),
              // Credentials go to the API's origin only: a redirect is the API's answer, never followed.
              redirect: 'manual',
              signal: limit.signal,
            });
            const body = decode(await readBounded(res, maxBytes), res.headers.get('content-type'));
            if (res.status >= 200 && res.status < 300) return body === undefined ? null : body;
            return failure(`${method.toUpperCase()} ${path} answered HTTP ${res.status}`, {
              code: `http_${res.status}`,
              details: { status: res.status, body },
            });
          } catch (err) {
            if (limit.signal.aborted && !ctx.signal.aborted)
              throw new McpLiteError(
                'deadline_exceeded',
                `${method.toUpperCase()} ${path}: no answer within ${timeoutMs} ms`,
              );
            if (err instanceof McpLiteError || ctx.signal.aborted) throw err;
            throw new McpLiteError('unavailable', `${method.toUpperCase()} ${path}: ${firstLine(err)}`, {
              reason: 'unavailable',
              upstream: base.origin,
            });
          } finally {
            clearTimeout(timer);
            ctx.signal.removeEventListener('abort', onAbort);
          }
        },
      });
    }
  }
  return tools;
}

/** The API's base URL: the option, else the document's first server (relative ones against the document). */
function baseUrlOf(api: Json, given: string | undefined, documentUrl: string | undefined): URL {
  const servers = (api.servers ?? []) as Array<{ url?: string }>;
  const raw = given ?? servers[0]?.url;
  if (!raw) throw new McpLiteError('config_invalid', 'The OpenAPI document names no server: give baseUrl');
  try {
    const url = new URL(raw, documentUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    if (!url.pathname.endsWith('/')) url.pathname += '/';
    return url;
  } catch {
    throw new McpLiteError('config_invalid', `Invalid OpenAPI baseUrl ${JSON.stringify(raw)}`);
  }
}

/** Whether include/exclude keep the operation: entries starting with `/` are path prefixes, others tags. */
function selected(path: string, operation: Json, options: OpenApiOptions): boolean {
  const tags = Array.isArray(operation.tags) ? (operation.tags as string[]) : [];
  const matches = (entry: string) => (entry.startsWith('/') ? path.startsWith(entry) : tags.includes(entry));
  if (options.include && !options.include.some(matches)) return false;
  return !(options.exclude ?? []).some(matches);
}

function toolName(method: string, path: string, operation: Json): string {
  const raw =
    typeof operation.operationId === 'string' && operation.operationId.length > 0
      ? operation.operationId
      : `${method}_${path.replace(/[{}]/g, '').replace(/^\/+|\/+$/g, '')}`;
  return raw.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 64) || method;
}

function uniqueName(name: string, taken: Set<string>): string {
  let unique = name;
  for (let i = 2; taken.has(unique); i++) unique = `${name}_${i}`;
  taken.add(unique);
  return unique;
}

/** The URL, headers and body of one call. */
function buildRequest(
  base: URL,
  path: string,
  placements: Placement[],
  args: Record<string, unknown>,
  fixed: Record<string, string>,
): { url: string; headers: Record<string, string>; body?: string } {
  let resolved = path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: string | undefined;
  for (const p of placements) {
    const value = args[p.property];
    if (value === undefined) continue;
    if (p.in === 'body') {
      body = JSON.stringify(value);
      headers['content-type'] = 'application/json';
    } else if (p.in === 'path') {
      // One segment: encodeURIComponent leaves `.` alone, so a lone `.` or `..` is refused below.
      resolved = resolved.replaceAll(`{${p.name}}`, encodeURIComponent(scalar(value)));
    } else if (p.in === 'query') {
      for (const v of Array.isArray(value) ? value : [value]) query.append(p.name, scalar(v));
    } else {
      headers[p.name.toLowerCase()] = scalar(value).replace(/[\r\n]/g, ' ');
    }
  }
  // The fixed headers (credentials) win over any the model supplied.
  for (const [k, v] of Object.entries(fixed)) headers[k.toLowerCase()] = v;
  if (resolved.split('/').some((segment) => segment === '.' || segment === '..'))
    throw new McpLiteError('invalid_params', 'Invalid arguments: a path parameter may not be "." or ".."');
  const url = new URL(resolved.replace(/^\/+/, ''), base);
  // The credentials go under the configured base only, never above it.
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname))
    throw new McpLiteError(
      'invalid_params',
      `Invalid arguments: the path leaves ${base.origin}${base.pathname}`,
    );
  for (const [k, v] of query) url.searchParams.append(k, v);
  return { url: url.href, headers, ...(body !== undefined ? { body } : {}) };
}

function scalar(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

/** The body as JSON when it says so (or parses), else as text; empty is undefined. */
function decode(bytes: Uint8Array, contentType: string | null): unknown {
  if (bytes.byteLength === 0) return undefined;
  const text = new TextDecoder().decode(bytes);
  if (contentType && /json/i.test(contentType)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return (message.split('\n')[0] ?? '').slice(0, 300);
}
