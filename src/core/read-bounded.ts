/**
 * Reading a body that came from elsewhere (a peer's answer, a metadata document, a key set, an OpenAPI document)
 * with a byte bound enforced while it arrives: `response.text()` or `.json()` would buffer whatever the peer sends
 * before any size check could run. This is the one home of that rule; the client, the gateway and the OAuth
 * resource server all read through it. Portable (no `Buffer`), so it runs on every runtime.
 */

/**
 * The body as bytes, at most `limit` of them (by its Content-Length, or as it arrives): past it the body is
 * cancelled and the read fails with `tooLarge()`, so a peer that answers without end costs bounded memory.
 */
export async function readBoundedBytes(
  res: Pick<Response, 'headers' | 'body'>,
  limit: number,
  tooLarge: () => Error,
): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
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
      throw tooLarge();
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}

/** The body as UTF-8 text, at most `limit` bytes (see `readBoundedBytes`). */
export async function readBoundedText(res: Response, limit: number, tooLarge: () => Error): Promise<string> {
  return new TextDecoder().decode(await readBoundedBytes(res, limit, tooLarge));
}

/** The body parsed as JSON, at most `limit` bytes (see `readBoundedBytes`); a body that is not JSON throws. */
export async function readBoundedJson(res: Response, limit: number, tooLarge: () => Error): Promise<unknown> {
  return JSON.parse(await readBoundedText(res, limit, tooLarge));
}

/** The plain error of a document over its bound, for callers that have no wire error of their own to throw. */
export function documentTooLarge(what: string, limit: number): () => Error {
  return () => new Error(`${what} larger than ${limit} bytes`);
}
