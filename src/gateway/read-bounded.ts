import { McpLiteError } from '../core/errors.js';
import { readBoundedBytes } from '../core/read-bounded.js';

/**
 * A fetch response's body, at most `limit` bytes: past it the body is cancelled and the read fails with
 * `payload_too_large`, so an API that answers without end costs the gateway bounded memory.
 */
export function readBounded(res: Response, limit: number): Promise<Uint8Array> {
  return readBoundedBytes(res, limit, () => tooLarge(limit));
}

function tooLarge(limit: number): McpLiteError {
  return new McpLiteError('payload_too_large', `The API answered more than ${limit} bytes`, {
    reason: 'upstream_too_large',
    limit,
  });
}
