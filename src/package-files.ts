import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** How far up from this module the package's root can be (src/x, dist/src/chunks/x, node_modules/mcplite/...). */
const MAX_LEVELS = 6;

/** mcplite's own package.json, as read where it was found. */
interface Manifest {
  name: string;
  version?: string;
}

let found: { root: string; manifest: Manifest } | undefined;

/**
 * The nearest folder above this module whose package.json names mcplite, with that package.json. Found by
 * walking up because the distance differs by layout (source, tsc's per-file build, the bundle's chunks), and a
 * bundled module cannot know which file it was written into.
 */
function ownPackage(): { root: string; manifest: Manifest } {
  if (found) return found;
  let dir = fileURLToPath(new URL('.', import.meta.url));
  for (let i = 0; i < MAX_LEVELS; i++) {
    const file = join(dir, 'package.json');
    const manifest = existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<Manifest>)
      : undefined;
    if (manifest?.name === 'mcplite') {
      found = {
        root: dir,
        manifest: { name: manifest.name, ...(manifest.version ? { version: manifest.version } : {}) },
      };
      return found;
    }
    const parent = join(dir, '..');
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(
    'mcplite cannot find its own package.json above its modules; is the installation complete?',
  );
}

/** The installed package's name and version (its package.json). */
export function packageManifest(): Manifest {
  return ownPackage().manifest;
}

/** A file that ships with the package (`proto/mcplite.proto`, `src/inspector/static/`), by its path from the root. */
export function packageFile(path: string): string {
  return join(ownPackage().root, path);
}
