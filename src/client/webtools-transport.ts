import { type ErrorCode, McpLiteError } from '../core/errors.js';
import type { JsonSchema } from '../core/schema.js';
import { fetchWithinOrigin, type HttpFetch, readJsonReply } from './http-fetch.js';
import { promiseToolCalls } from './http-transport.js';
import type { ClientLimits } from './limits.js';
import type { LiteAnswer } from './lite-result.js';
import { readSse } from './sse.js';
import type { Transport, WireContext, WireOutcome } from './transport.js';
import type { ConnectOptions, ToolInfo } from './types.js';
import { fromHttpStatus, isRecord, toClientError } from './wire-errors.js';

// Webtools error codes that are protocol errors; any other code in an error envelope is the tool's own
// (business) failure.
const PROTOCOL_CODES: Readonly<Record<string, ErrorCode>> = {
  WEBTOOL_NOT_FOUND: 'tool_not_found',
  ACTION_NOT_FOUND: 'tool_not_found',
  UNKNOWN_ACTION: 'tool_not_found',
  SCHEMA_ERROR: 'invalid_params',
  CONFIG_ERROR: 'invalid_params',
  RATE_LIMIT: 'resource_exhausted',
  INTERNAL_ERROR: 'internal',
  UNAUTHORIZED: 'unauthenticated',
  UNAUTHENTICATED: 'unauthenticated',
  FORBIDDEN: 'forbidden',
  PROMISE_NOT_FOUND: 'promise_not_found',
  PROMISE_EXPIRED: 'promise_expired',
};

/**
 * Webtools (the seed spec): `GET <url>` is the metadata, whose actions are the tools; `POST <url>`
 * executes `{action, request, config?, version?}` and answers `{status:"ok", data}` or `{status:"error",
 * error:{code, message}}`. The outcome extension: `status:"pending"` (a promise, redeemed with the `redeem`
 * action), `status:"input_required"` (an elicitation, answered by posting the state and answers back).
 */
export function webtoolsTransport(
  url: string,
  headers: Record<string, string>,
  options: ConnectOptions,
  limits: ClientLimits,
  send: HttpFetch = fetchWithinOrigin,
): Transport {
  const base = url.endsWith('/') ? url : `${url}/`;

  /** A whole (non-streamed) reply as its status and JSON body: bounded, auth failures first. */
  async function envelope(res: Response): Promise<{ status: number; body: unknown }> {
    return { status: res.status, body: await readJsonReply(res, limits.maxResponseBytes) };
  }

  async function exchange(
    init: RequestInit,
    ctx: WireContext,
    path = '',
  ): Promise<{ status: number; body: unknown }> {
    try {
      const res = await send(base + path, {
        ...init,
        headers: {
          ...headers,
          ...ctx.trace,
          accept: 'application/json',
          ...(init.body ? { 'content-type': 'application/json' } : {}),
        },
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      return await envelope(res);
    } catch (err) {
      throw toClientError(err, ctx.signal);
    }
  }

  /**
   * A POST whose partials reach `ctx.onPartial`: the SSE form of the wire (`message` events carry `{partial}`, then
   * one `done` or `error` event carries the envelope). Answers the final envelope as `exchange` would; a stream that
   * ends without one is the server's fault.
   */
  async function streamExchange(body: string, ctx: WireContext): Promise<{ status: number; body: unknown }> {
    try {
      const res = await send(base, {
        method: 'POST',
        body,
        headers: {
          ...headers,
          ...ctx.trace,
          accept: 'text/event-stream, application/json',
          'content-type': 'application/json',
        },
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      if (!res.ok || !res.body || !res.headers.get('content-type')?.startsWith('text/event-stream'))
        return await envelope(res);
      for await (const ev of readSse(res.body, limits)) {
        if (ev.event === 'message') {
          const data = JSON.parse(ev.data) as { partial?: unknown };
          ctx.onPartial?.(data.partial);
        } else if (ev.event === 'done' || ev.event === 'error') {
          // The stream began as a 200, so an error envelope carries no status of its own: 4xx unless internal.
          const envelope = JSON.parse(ev.data) as unknown;
          return { status: ev.event === 'done' ? 200 : 400, body: envelope };
        }
      }
      throw fromHttpStatus(502, 'the Webtools event stream ended without an outcome');
    } catch (err) {
      throw toClientError(err, ctx.signal);
    }
  }

  async function execute(
    action: string,
    request: Record<string, unknown>,
    ctx: WireContext,
    elicitation?: LiteAnswer,
  ): Promise<WireOutcome> {
    const body = {
      action,
      request,
      ...(options.config ? { config: options.config } : {}),
      ...(options.version ? { version: options.version } : {}),
      ...(elicitation ? { elicitation } : {}),
    };
    const { status, body: reply } = ctx.onPartial
      ? await streamExchange(JSON.stringify(body), ctx)
      : await exchange({ method: 'POST', body: JSON.stringify(body) }, ctx);
    const r = isRecord(reply) ? reply : {};
    switch (r.status) {
      case 'ok':
        return { type: 'answer', value: r.data };
      case 'pending': {
        const token = typeof r.promise === 'string' ? r.promise : String(r.promise_token ?? '');
        const eta = r.estimated_completion;
        return {
          type: 'promise',
          token,
          ...(typeof eta === 'string' ? { estimatedCompletion: eta } : {}),
          ...(typeof eta === 'number' ? { estimatedCompletion: new Date(eta).toISOString() } : {}),
        };
      }
      case 'input_required': {
        const e = isRecord(r.input) ? r.input : isRecord(r.elicitation) ? r.elicitation : r;
        const state = String(e.state ?? '');
        const schema = e.requestedSchema ?? e.requested_schema ?? e.schema;
        return {
          type: 'elicitation',
          message: String(e.message ?? ''),
          requestedSchema: (isRecord(schema) ? schema : {}) as JsonSchema,
          // A decline is sent too: the handler gets it and answers as it likes.
          resume: (values, next) =>
            execute(
              action,
              request,
              next,
              values === undefined ? { state, action: 'decline' } : { state, answers: values },
            ),
        };
      }
      case 'error': {
        const e = isRecord(r.error) ? r.error : {};
        const code = typeof e.code === 'string' ? e.code : 'ERROR';
        const message = typeof e.message === 'string' ? e.message : 'Error';
        if (code === 'RESOURCE_REQUIRED' || isRecord(e.resource_request)) {
          const rr = isRecord(e.resource_request) ? e.resource_request : isRecord(e.details) ? e.details : {};
          return {
            type: 'request-for-more-resource',
            resource: String(rr.resource ?? ''),
            requested: Number(rr.requested ?? 0),
            ...(typeof rr.granted === 'number' ? { granted: rr.granted } : {}),
            ...(typeof rr.unit === 'string' ? { unit: rr.unit } : {}),
            message,
          };
        }
        const protocol = PROTOCOL_CODES[code];
        if (protocol || status >= 500)
          throw new McpLiteError(protocol ?? 'internal', message, {
            webtools_code: code,
            http_status: status,
          });
        return { type: 'failure', message, code, ...(e.details !== undefined ? { details: e.details } : {}) };
      }
      default:
        throw fromHttpStatus(status, 'not a Webtools envelope');
    }
  }

  return {
    binding: 'webtools',
    canWait: true,
    async listTools(ctx): Promise<ToolInfo[]> {
      const { status, body } = await exchange({ method: 'GET' }, ctx, options.version ?? '');
      if (!isRecord(body) || !Array.isArray(body.actions)) {
        const e = isRecord(body) && isRecord(body.error) ? body.error : undefined;
        throw e
          ? new McpLiteError('tool_not_found', String(e.message ?? 'Webtool not found'), {
              webtools_code: e.code,
            })
          : fromHttpStatus(status, 'not Webtools metadata');
      }
      return body.actions.filter(isRecord).map((a) => ({
        name: String(a.name ?? ''),
        description: typeof a.description === 'string' ? a.description : '',
        inputSchema: (isRecord(a.requestSchema) ? a.requestSchema : { type: 'object' }) as JsonSchema,
        // `{}` is what the binding sends for a tool without an output schema: no schema, as on the other wires.
        ...(isRecord(a.responseSchema) && Object.keys(a.responseSchema).length > 0
          ? { outputSchema: a.responseSchema as JsonSchema }
          : {}),
        ...(typeof a['@type'] === 'string' ? { '@type': a['@type'] } : {}),
      }));
    },
    call: (name, args, ctx) => execute(name, args, ctx),
    ...promiseToolCalls(execute),
    async close() {},
  };
}
