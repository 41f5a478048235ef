/**
 * "One job per file, nothing over 25 KB" (docs/architecture.md, Layers): every source file under src/ but the
 * tests and their fixtures stays within 25 KB. A file that grows past it has taken on a second job, which moves to
 * a file of its own; helpers that only one module uses live in that module rather than in fragments beside it.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAX_BYTES = 25 * 1024;

/** The source files below `dir` (TypeScript and JavaScript), tests and fixtures left out. */
function sources(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sources(path));
    else if (/\.(ts|js|mjs)$/.test(entry.name) && !/\.(test|fixtures)\.ts$/.test(entry.name))
      found.push(path);
  }
  return found;
}

describe('source file sizes', () => {
  it('keeps every source file under src/ within 25 KB', () => {
    const over = sources(join(ROOT, 'src'))
      .filter((file) => statSync(file).size > MAX_BYTES)
      .map((file) => `${relative(ROOT, file)}: ${statSync(file).size} bytes`);
    expect(over).toEqual([]);
  });
});
