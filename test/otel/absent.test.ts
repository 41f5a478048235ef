/**
 * `@opentelemetry/api` is an optional peer (issue 27): in a real child process where no `@opentelemetry/*`
 * package resolves (test/support/hide-otel.cjs), mcplite loads, serves and its client calls as before; and
 * `mcplite serve --otel` stops with one line naming the packages to install.
 */
import { describe, expect, it } from 'vitest';
import { MAIN, runCommand } from '../support/cli-process.js';

const HIDE = ['--require', './test/support/hide-otel.cjs', '--import', 'tsx'];

describe('without @opentelemetry/api', () => {
  it('the library loads, serves and calls', async () => {
    const child = runCommand(process.execPath, [...HIDE, 'test/support/otel-absent-server.ts']);
    expect(await child.exited, child.stderr()).toBe(0);
    expect(child.stdout()).toContain('otel false\n');
    expect(child.stdout()).toContain('answer {"type":"answer","value":{"text":"no otel here"}');
  }, 120_000);

  it('serve --otel says what to install', async () => {
    const child = runCommand(process.execPath, [...HIDE, MAIN, 'serve', '--demo', '--otel', '--port', '0']);
    expect(await child.exited).toBe(2);
    expect(child.stderr()).toContain('npm install @opentelemetry/api @opentelemetry/sdk-node');
    expect(child.stdout()).not.toContain('listening');
  }, 120_000);
});
