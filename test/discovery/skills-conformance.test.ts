/**
 * The official conformance suite's Skills scenarios (`sep-2640-skills-directory`, `-enumeration`, `-manifest`)
 * against the conformance fixture (examples/conformance/, which serves two skills), through
 * `scripts/conformance.mjs` as `npm run conformance -- --scenario …` runs them; enumeration also at the stateless
 * revision, where the cache hints are checked. Every check passes, none is skipped.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the suite on one scenario: its exit code and its output. */
async function scenario(...args: string[]): Promise<{ code: number; out: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'scripts/conformance.mjs'), '--scenario', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr.on('data', (chunk) => {
    out += chunk;
  });
  const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
  return { code, out };
}

describe('the Skills conformance scenarios', { timeout: 180_000 }, () => {
  for (const args of [
    ['sep-2640-skills-directory'],
    ['sep-2640-skills-enumeration'],
    ['sep-2640-skills-enumeration', '--spec-version', '2026-07-28', '--force'],
    ['sep-2640-skills-manifest'],
  ]) {
    it(`passes ${args.join(' ')}`, async () => {
      const { code, out } = await scenario(...args);
      expect(out).toMatch(/Passed: (\d+)\/\1, 0 failed, 0 warnings/);
      expect(out).not.toMatch(/SKIPPED/);
      expect(code).toBe(0);
    });
  }
});
