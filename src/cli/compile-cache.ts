/**
 * Turns on Node's on-disk compile cache (Node 22.1 and later; a no-op before): a server started by its client, as
 * every stdio server is, then skips compiling the modules it loaded on its previous start. Imported first by
 * `main.ts`, so that the command files it loads afterwards are cached.
 */
import * as nodeModule from 'node:module';

const enable = (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache;
// The cache is an optimisation: a read-only or full temporary directory must never stop the command.
try {
  enable?.();
} catch {
  // Nothing to do: the command runs uncached.
}
