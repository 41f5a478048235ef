import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * mcplite's own package.json, found by walking up from this file: it is two levels up from src/cli when running
 * from source and three from dist/src/cli when built, and walking up works for both without guessing.
 */
export function packageInfo(): { name: string; version: string } {
  let dir = new URL('.', import.meta.url);
  for (let i = 0; i < 6; i++) {
    const file = fileURLToPath(new URL('package.json', dir));
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'mcplite') return { name: pkg.name, version: pkg.version ?? '0.0.0' };
    }
    dir = new URL('..', dir);
  }
  return { name: 'mcplite', version: '0.0.0' };
}

/** Where the demo's entry is: the built dist/examples/demo/index.js, or examples/demo/index.ts from source. */
export function demoModulePath(): string {
  // Both layouts keep the same distance between the CLI and the demo; only the extension differs.
  const fromSource = import.meta.url.endsWith('.ts');
  return fileURLToPath(new URL(`../../examples/demo/index.${fromSource ? 'ts' : 'js'}`, import.meta.url));
}
