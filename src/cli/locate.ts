import { readFileSync } from 'node:fs';
import { packageFile } from '../package-files.js';

/** mcplite's own name and version, from its package.json. */
export function packageInfo(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version?: string };
  return { name: 'mcplite', version: pkg.version ?? '0.0.0' };
}

/** Where the demo's entry is: the built dist/examples/demo/index.js, or examples/demo/index.ts from source. */
export function demoModulePath(): string {
  return packageFile(
    import.meta.url.endsWith('.ts') ? 'examples/demo/index.ts' : 'dist/examples/demo/index.js',
  );
}
