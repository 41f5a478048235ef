import { documentTooLarge, readBoundedBytes } from '../core/read-bounded.js';

/** The largest OpenAPI document (a file, or each file a fetched one refers to) read: 16 MiB. */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/**
 * The parser's reader of http(s) documents (the document fetched by URL and the files its `$ref`s name), in
 * place of its own, which buffers whatever the server sends: each body is read with `maxBytes` enforced while it
 * arrives, and the request and the read together end after `timeoutMs`. The operator named this URL, typically
 * an internal service's, so private addresses are allowed (the parser's guard is meant for strangers' documents);
 * no credentials go with it. `failure` keeps the reader's own error, which the parser replaces by a vague one.
 */
export function boundedDocumentReader(timeoutMs: number, send: typeof fetch, maxBytes = MAX_DOCUMENT_BYTES) {
  const reader = {
    failure: undefined as Error | undefined,
    order: 1,
    canRead: (file: { url: string }) => /^https?:\/\//i.test(file.url),
    read: async (file: { url: string }): Promise<Buffer> => {
      const where = documentLabel(file.url);
      const limit = new AbortController();
      const timer = setTimeout(() => limit.abort(), timeoutMs);
      try {
        const res = await send(file.url, {
          headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.1' },
          signal: limit.signal,
        });
        if (!res.ok) {
          await res.body?.cancel().catch(() => {});
          throw new Error(`${where} answered HTTP ${res.status}`);
        }
        const bytes = await readBoundedBytes(
          res,
          maxBytes,
          documentTooLarge(`The OpenAPI document ${where} is`, maxBytes),
        );
        // The parser's JSON and YAML readers take text from a Buffer only.
        return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      } catch (err) {
        reader.failure = limit.signal.aborted
          ? new Error(`The OpenAPI document ${where} was not read within ${timeoutMs} ms`)
          : err instanceof Error
            ? err
            : new Error(String(err));
        throw reader.failure;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  return reader;
}

/** A document's URL as errors show it: no user, password or query. */
function documentLabel(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return 'at that URL';
  }
}
