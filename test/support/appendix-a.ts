/**
 * Shared setup of the Appendix A tests (`test/appendix-a*.test.ts`): the demo served on a real socket for the
 * calling test file, and the check of the `_meta` every result carries.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { createServer } from '../../src/index.js';
import { type RunningServer, serve } from '../../src/node.js';
import { isIsoTime } from './mcp-lite-http.js';

/** The demo's mcp-lite base URL (`…/mcp-lite/v1/`), set once `serveDemo`'s beforeAll has run. */
export let base: string;

/** Serves the demo on a real socket for the calling test file's tests (beforeAll/afterAll), setting `base`. */
export function serveDemo(): void {
  let running: RunningServer | undefined;
  beforeAll(async () => {
    running = await serve(createServer({ tools, ...serverOptions }), { port: 0 });
    base = `${running.url}/mcp-lite/v1/`;
  });
  afterAll(async () => {
    await running?.close(1000);
  });
}

/** Checks the `_meta` every result carries (spec 3.3). */
export function expectMeta(meta: any, responseType: string): void {
  expect(meta.response_type).toBe(responseType);
  expect(isIsoTime(meta.timestamp)).toBe(true);
  expect(meta.processing_time_ms).toEqual(expect.any(Number));
  expect(meta.server_version).toBe(serverOptions.version);
}
