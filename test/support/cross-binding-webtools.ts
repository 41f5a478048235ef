/**
 * The cross-binding suite's Webtools adapter (test/cross-binding-*.test.ts): fetch against the implicit webtool
 * (GET metadata, POST execute, SSE), its envelopes normalised into the common shape
 * (test/support/cross-binding-shape.ts). Webtools has no `_meta`: the server version is the webtool's, the time
 * is the response's `Date` header.
 */
import { createParser } from 'eventsource-parser';
import { expect } from 'vitest';
import {
  type BindingAdapter,
  type Called,
  type ErrorClass,
  errorDetail,
  mask,
} from './cross-binding-shape.js';

const WEBTOOLS_CLASS: Partial<Record<string, ErrorClass>> = {
  SCHEMA_ERROR: 'invalid_params',
  ACTION_NOT_FOUND: 'tool_not_found',
  PROMISE_NOT_FOUND: 'promise_not_found',
  INTERNAL_ERROR: 'internal',
  TIMEOUT: 'deadline_exceeded',
  UNAUTHENTICATED: 'unauthenticated',
  CANCELLED: 'cancelled',
};

/** Webtools: GET the metadata, POST execute (JSON or SSE), the time read from `Date`. */
export const webtoolsAdapter: BindingAdapter = {
  name: 'webtools',
  open({ running, token }) {
    // Without a declaration the whole catalog is one webtool named after the server ("mcplite").
    const url = `${running.url}/webtools/mcplite/`;
    const headers = (accept?: string): Record<string, string> => ({
      'content-type': 'application/json',
      ...(accept ? { accept } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    });
    // Webtools replies carry no `_meta`: the server version is the implicit webtool's version (the server's),
    // read from its metadata, and the time is the response's Date header.
    let version: Promise<string> | undefined;
    const webtoolVersion = () => {
      version ??= fetch(url, { headers: headers() }).then(async (r) => (await r.json()).version);
      return version;
    };
    const meta = async (date: string | null, promise = false) => ({
      promise_token: promise,
      estimated_completion: promise,
      timestamp: date !== null && !Number.isNaN(Date.parse(date)),
      server_version: await webtoolVersion(),
    });
    const fromEnvelope = async (body: any, date: string | null): Promise<Called> => {
      switch (body.status) {
        case 'ok':
          return {
            reply: {
              kind: 'result',
              response_type: 'answer',
              fields: { content: body.data },
              meta: await meta(date),
            },
          };
        case 'pending':
          expect(body.redeem).toEqual({ action: 'redeem', request: { promise: body.promise } });
          expect(Date.parse(body.estimated_completion)).not.toBeNaN();
          return {
            reply: { kind: 'result', response_type: 'promise', fields: {}, meta: await meta(date, true) },
            token: body.promise,
          };
        case 'input_required':
          return {
            reply: {
              kind: 'result',
              response_type: 'elicitation',
              fields: mask({ elicitation: body.input }),
              meta: await meta(date),
            },
            state: body.input.state,
          };
        default: {
          const { code, message, details } = body.error;
          if (code === 'RESOURCE_REQUIRED') {
            return {
              reply: {
                kind: 'result',
                response_type: 'request-for-more-resource',
                fields: { resource_request: { ...details, message } },
                meta: await meta(date),
              },
            };
          }
          const cls = WEBTOOLS_CLASS[code];
          if (cls === undefined) {
            // Not a protocol error: the tool's own failure (TOOL_ERROR when the tool gave no code).
            const failure = {
              message,
              ...(code !== 'TOOL_ERROR' ? { code } : {}),
              ...(details !== undefined ? { details } : {}),
            };
            return {
              reply: {
                kind: 'result',
                response_type: 'failure',
                fields: { failure },
                meta: await meta(date),
              },
            };
          }
          const data = details ?? {};
          const detail =
            cls === 'tool_not_found'
              ? errorDetail(cls, {
                  requested_tool: data.requested_action,
                  available_tools: data.available_actions,
                  suggestion: data.suggestion,
                })
              : errorDetail(cls, data);
          return { reply: { kind: 'error', class: cls, detail } };
        }
      }
    };
    const body = (action: string, request?: Record<string, unknown>, elicitation?: unknown) =>
      JSON.stringify({ action, request: request ?? {}, ...(elicitation ? { elicitation } : {}) });
    return {
      async listTools() {
        const res = await fetch(url, { headers: headers() });
        const metadata = (await res.json()) as { actions: any[] };
        return metadata.actions.map((a) => ({
          name: a.name,
          type: a['@type'] ?? '',
          description: a.description,
          inputSchema: a.requestSchema,
        }));
      },
      async call(name, args, elicitation) {
        const res = await fetch(url, {
          method: 'POST',
          headers: headers(),
          body: body(name, args, elicitation),
        });
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        return fromEnvelope(await res.json(), res.headers.get('date'));
      },
      async stream(name, args) {
        const res = await fetch(url, {
          method: 'POST',
          headers: headers('text/event-stream'),
          body: body(name, args),
        });
        if (res.status === 401) {
          return { partials: [], final: (await fromEnvelope(await res.json(), null)).reply };
        }
        expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
        const partials: unknown[] = [];
        let final: unknown;
        const parser = createParser({
          onEvent: (e) => {
            const data = JSON.parse(e.data);
            if (e.event === 'message') partials.push(data.partial);
            else if (e.event === 'done' || e.event === 'error') final = data;
          },
        });
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          parser.feed(decoder.decode(chunk, { stream: true }));
        }
        if (!final) throw new Error('the SSE stream ended without done or error');
        return { partials, final: (await fromEnvelope(final, res.headers.get('date'))).reply };
      },
      close() {},
    };
  },
};
