/**
 * A base path with one leading and one trailing slash, as the binding matches it. Its own file so that `serve`
 * can derive the WebSocket path from the same rule without `mcplite/http` exporting it.
 */
export function normaliseBase(base: string): string {
  let b = base.startsWith('/') ? base : `/${base}`;
  if (!b.endsWith('/')) b += '/';
  return b;
}
