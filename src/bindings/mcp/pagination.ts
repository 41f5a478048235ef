import { fromBase64, toBase64Url } from '../../core/base64.js';
import { McpLiteError } from '../../core/errors.js';

/** Cursor pagination over a cached list: opaque base64url offsets. */
export function paginate<T>(
  items: readonly T[],
  cursor: unknown,
  pageSize: number,
): { page: readonly T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined && cursor !== null) {
    const m =
      typeof cursor === 'string' ? /^o:(\d{1,9})$/.exec(new TextDecoder().decode(fromBase64(cursor))) : null;
    const n = m ? Number(m[1]) : Number.NaN;
    if (!Number.isInteger(n) || n > items.length) {
      throw new McpLiteError('invalid_params', 'Invalid params: unknown cursor');
    }
    start = n;
  }
  if (start === 0 && items.length <= pageSize) return { page: items };
  const end = Math.min(items.length, start + pageSize);
  const page = items.slice(start, end);
  return end < items.length ? { page, nextCursor: toBase64Url(`o:${end}`) } : { page };
}
