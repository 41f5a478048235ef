import { McpLiteError } from '../core/errors.js';

/**
 * A fetch response's body, at most `limit` bytes: past it the body is cancelled and the read fails with
 * `payload_too_large`, so an API that answers without end costs the gateway bounded memory.
 */
export async function readBounded(res: Response, limit: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge(limit);
  }
  if (!res.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): McpLiteError {
  return new McpLiteError('payload_too_large', `The API answered more than ${limit} bytes`, {
    reason: 'upstream_too_large',
    limit,
  });
}
