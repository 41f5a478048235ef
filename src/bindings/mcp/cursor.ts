import { fromBase64, toBase64Url } from '../../core/base64.js';
import { McpLiteError } from '../../core/errors.js';

/**
 * The offset a listing's `cursor` names (0 without one): opaque base64url offsets, at most `max`. Anything else is
 * `invalid_params` ("unknown cursor").
 */
export function cursorOffset(cursor: unknown, max: number): number {
  if (cursor === undefined || cursor === null) return 0;
  const m =
    typeof cursor === 'string' ? /^o:(\d{1,9})$/.exec(new TextDecoder().decode(fromBase64(cursor))) : null;
  const n = m ? Number(m[1]) : Number.NaN;
  if (!Number.isInteger(n) || n > max)
    throw new McpLiteError('invalid_params', 'Invalid params: unknown cursor');
  return n;
}

/** The cursor of the page that starts at `offset`. */
export function offsetCursor(offset: number): string {
  return toBase64Url(`o:${offset}`);
}

/** Cursor pagination over a cached list. */
export function paginate<T>(
  items: readonly T[],
  cursor: unknown,
  pageSize: number,
): { page: readonly T[]; nextCursor?: string } {
  const start = cursorOffset(cursor, items.length);
  if (start === 0 && items.length <= pageSize) return { page: items };
  const end = Math.min(items.length, start + pageSize);
  const page = items.slice(start, end);
  return end < items.length ? { page, nextCursor: offsetCursor(end) } : { page };
}
