import { packageFile, packageManifest } from '../package-files.js';

/** mcplite's own name and version, from its package.json. */
export function packageInfo(): { name: string; version: string } {
  return { name: 'mcplite', version: packageManifest().version ?? '0.0.0' };
}

/** Where the demo's entry is: the built dist/examples/demo/index.js, or examples/demo/index.ts from source. */
export function demoModulePath(): string {
  return packageFile(
    import.meta.url.endsWith('.ts') ? 'examples/demo/index.ts' : 'dist/examples/demo/index.js',
  );
}
