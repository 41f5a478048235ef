/**
 * Shared setup of the Webtools binding tests (`webtools-binding-*.test.ts`): the demo server with its
 * `documents` webtool (two published versions), JSON requests to a webtool, and checks of envelopes and
 * response schemas.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, expect } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { startServer, type TestServer } from '../support/http-harness.js';

const ajv = new Ajv2020({ strict: false, allErrors: true });
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (a: unknown) => void;
addFormats(ajv);

/** The demo server of the calling test file, started by `useDemoServer`. */
export let demo: TestServer;
/** The URL of the demo's `documents` webtool (trailing slash), set by `useDemoServer`. */
export let url: string;

/** Starts the demo server before the calling file's tests and closes it after them. */
export function useDemoServer(): void {
  beforeAll(async () => {
    demo = await startServer({ ...serverOptions, tools });
    url = `${demo.running.url}/webtools/documents/`;
  });
  afterAll(() => demo.close());
}

/** A Webtools response envelope: `status` with `data` or `error`, plus the outcome extension's members. */
export type Envelope = {
  status: string;
  data?: any;
  error?: { code: string; message: string; details?: any };
} & Record<string, any>;

/** POSTs `body` (JSON, or a raw string) to a webtool (the demo's by default) and reads the JSON envelope. */
export async function post(body: unknown, headers: Record<string, string> = {}, to = url) {
  const res = await fetch(to, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  expect(res.headers.get('content-type')).toBe('application/json');
  return { status: res.status, headers: res.headers, body: (await res.json()) as Envelope };
}

/** GETs `path` under the demo's webtool (its metadata, or a version's) and reads the JSON answer. */
export async function get(path = '') {
  const res = await fetch(`${url}${path}`);
  expect(res.headers.get('content-type')).toBe('application/json');
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Expects an error envelope with the given HTTP status and error code, and a message. */
export function expectError(r: { status: number; body: Envelope }, status: number, code: string): void {
  expect({ status: r.status, envelope: r.body.status, code: r.body.error?.code }).toEqual({
    status,
    envelope: 'error',
    code,
  });
  expect(r.body.error!.message).toEqual(expect.any(String));
}

/** The response schema of an action in a version's metadata, compiled. */
export async function responseValidator(action: string, version = '') {
  const meta = await get(version);
  const schema = meta.body.actions.find((a: { name: string }) => a.name === action).responseSchema;
  return ajv.compile(schema);
}

/** Expects `data` to match a compiled response schema, showing the schema errors if not. */
export function expectMatches(validate: ReturnType<typeof ajv.compile>, data: unknown): void {
  const ok = validate(data);
  expect(validate.errors ?? []).toEqual([]);
  expect(ok).toBe(true);
}
