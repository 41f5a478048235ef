/**
 * When a server installs its tracing (issue 27): with `@opentelemetry/api` present but no SDK registered it
 * installs nothing, so its calls pay nothing (its chain stays empty: no operation is even built); once an SDK is
 * registered a new server installs the tracing stage, unless `telemetry.enabled` is false; `enabled: true`
 * installs it for an SDK registered later, which then traces.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, defineTool } from '../../src/index.js';
import { registerTestSdk, type TestSdk } from '../support/otel-sdk.js';

const ping = defineTool<Record<string, never>>({
  name: 'ping',
  description: 'Answers pong',
  inputSchema: { type: 'object' },
  handler: () => 'pong',
});

let sdk: TestSdk | undefined;
afterAll(() => sdk?.shutdown());

describe('the tracing stage', () => {
  it('is not installed without an SDK, and is with one (unless turned off)', async () => {
    const bare = createServer({ tools: [ping] });
    expect(bare.pipeline.empty).toBe(true);
    const early = createServer({ tools: [ping], telemetry: { enabled: true } });
    expect(early.pipeline.empty).toBe(false);

    sdk = registerTestSdk();
    expect(createServer({ tools: [ping] }).pipeline.empty).toBe(false);
    expect(createServer({ tools: [ping], telemetry: { enabled: false } }).pipeline.empty).toBe(true);

    // The server made before the SDK, with `enabled: true`, traces now.
    expect((await early.callTool({ name: 'ping', arguments: {} })).outcome).toEqual({
      type: 'answer',
      result: 'pong',
    });
    const spans = sdk.spans.getFinishedSpans().filter((s) => s.name === 'tools/call ping');
    expect(spans).toHaveLength(1);
    expect(spans[0]!.attributes['mcplite.outcome']).toBe('answer');
  });
});
