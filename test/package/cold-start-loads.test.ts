/**
 * What a cold start loads: `mcplite serve --stdio` of a plain .js module (dist/, as a client starts it), up to
 * its first answered tools/call. Packages a first call does not need stay unloaded: with `@opentelemetry/api`
 * installed (it is here) but no SDK registered, the API is not loaded, and pino waits for the first line logged.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/cli-process.js';

const OPENING = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } },
];

/** Serves the startup bench's echo module over stdio, sends the opening, ends stdin; the output once it exits. */
async function serveOnce(): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const child = spawn(
    process.execPath,
    [
      '--require',
      join(ROOT, 'test/support/report-loaded-packages.cjs'),
      join(ROOT, 'dist/src/cli/main.js'),
      'serve',
      '--stdio',
      join(ROOT, 'bench/startup/echo-tools.js'),
      '--log-level',
      'warn',
    ],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '' } },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
    // The answer to the call is in: ending stdin ends the server.
    if (stdout.includes('"id":2')) child.stdin.end();
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  for (const message of OPENING) child.stdin.write(`${JSON.stringify(message)}\n`);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { stdout, stderr, code };
}

describe('a cold start of serve --stdio', () => {
  it('answers its first call without loading the OpenTelemetry API or pino', async () => {
    const { stdout, stderr, code } = await serveOnce();
    expect(code).toBe(0);
    expect(stdout).toContain('"structuredContent":{"message":"hi"}');
    const line = /^loaded-packages (.*)$/m.exec(stderr);
    expect(line, stderr).not.toBeNull();
    const packages = JSON.parse(line![1]!) as string[];
    // The CLI's argument parser did load, so the list is a real one (ajv is inside the bundle, not a package).
    expect(packages).toContain('commander');
    expect(packages).not.toContain('@opentelemetry/api');
    // Nothing was logged, so the logger's pino was never made.
    expect(packages).not.toContain('pino');
  });
});
