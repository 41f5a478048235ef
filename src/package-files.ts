import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How far up from this module the package's root can be (src/x, dist/src/chunks/x, node_modules/mcplite/...). */
const MAX_LEVELS = 6;

let root: string | undefined;

/**
 * The installed package's root: the nearest folder above this module whose package.json names mcplite. Found
 * by walking up because the distance differs by layout (source, tsc's per-file build, the bundle's chunks), and
 * a bundled module cannot know which file it was written into.
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = fileURLToPath(new URL('.', import.meta.url));
  for (let i = 0; i < MAX_LEVELS; i++) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'mcplite'
    ) {
      root = dir;
      return dir;
    }
    const parent = join(dir, '..');
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(
    'mcplite cannot find its own package.json above its modules; is the installation complete?',
  );
}

/** A file that ships with the package (`proto/mcplite.proto`, `src/inspector/static/`), by its path from the root. */
export function packageFile(path: string): string {
  return join(packageRoot(), path);
}
