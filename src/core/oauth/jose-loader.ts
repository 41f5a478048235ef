/**
 * `jose`, loaded on the first token a server checks rather than when the root entry is imported: a server without
 * OAuth (most of them, and every stdio server its client starts) never pays for loading it. Types come from
 * `import type`, which costs nothing at run time.
 */
type Jose = typeof import('jose');

let loading: Promise<Jose> | undefined;

/** The `jose` module, imported once per process. */
export function loadJose(): Promise<Jose> {
  loading ??= import('jose');
  return loading;
}
