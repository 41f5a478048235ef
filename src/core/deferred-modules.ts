import { PendingSet } from './pending-set.js';

/**
 * Modules the root entry loads when first needed rather than with itself: the interpreting validator (only where
 * code cannot be generated) and the pure-JavaScript hashes (only where `node:crypto` is not at hand). Each starts
 * loading at its first need and is tracked here; `createHandler` makes each request wait for `modulesLoaded()`
 * while anything loads, so the synchronous paths that use them (validating, signing) find them loaded. Only a call
 * made in the same turn as its server, without a handler, on such a runtime can come before: it is refused
 * `unavailable` (retry), never answered unchecked.
 */

const loading = new PendingSet();

/** Tracks a module being loaded until it settles (a failure is reported where the module is used). */
export function trackLoading(load: Promise<unknown>): void {
  loading.add(load);
}

/** Resolves once every module being loaded has settled; undefined when none is (the common case, nothing to await). */
export function modulesLoaded(): Promise<void> | undefined {
  return loading.settled();
}
