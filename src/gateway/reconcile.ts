/** How one kind of entry (tools, resources, templates, prompts) is kept in a catalog by `reconcile`. */
export interface CatalogKind<T> {
  /** What names the entry in its catalog (a tool's name, a resource's URI, a template's URI template). */
  key(entry: T): string;
  /** Adds it; throws when the catalog refuses it (a name another server holds). */
  add(entry: T): void;
  remove(key: string): void;
}

/**
 * Brings one source's entries of one kind in line with a fresh listing: those it no longer lists and those that
 * changed (by `fingerprint`: what a client sees) are removed, new and changed ones added. `held` (key to
 * fingerprint) is what the source holds in the catalog, updated here; a refused entry goes to `refused` once.
 */
export function reconcile<T extends object>(
  held: Map<string, string>,
  listed: readonly T[],
  kind: CatalogKind<T>,
  refused: (key: string, err: unknown) => void,
): void {
  const next = new Map(listed.map((entry) => [kind.key(entry), fingerprint(entry)]));
  for (const [key, print] of [...held]) {
    if (next.get(key) === print) continue;
    kind.remove(key);
    held.delete(key);
  }
  for (const entry of listed) {
    const key = kind.key(entry);
    if (held.has(key)) continue;
    try {
      kind.add(entry);
      held.set(key, next.get(key)!);
    } catch (err) {
      refused(key, err);
    }
  }
}

/** What a client sees of an entry: its fields but the functions that serve it. */
export function fingerprint(entry: object): string {
  return JSON.stringify(entry, (_key, value: unknown) => (typeof value === 'function' ? undefined : value));
}
