import { McpLiteError } from '../core/errors.js';
import { documentTooLarge, readBoundedJson } from '../core/read-bounded.js';
import { compileValidator, type JsonSchema, type Validator } from '../core/schema.js';

/**
 * The one reader of the documents a connection can start from (a Server Card, a registry `server.json`): read
 * bounded in size and time, required to say it is JSON (an HTML page is not one), and checked against its schema
 * before anything in it is trusted. A URL is fetched; a local path (registry entries are often files) is read from
 * the file system where the runtime has one.
 */

/** What a discovery document is and how far it is trusted. */
export interface DocumentKind {
  /** Its name in errors: "Server Card", "registry entry". */
  what: string;
  /** The media types taken besides `application/json`. */
  mediaTypes: readonly string[];
  /** Largest document read, in bytes. */
  maxBytes: number;
  /** Longest wait for it, in milliseconds. */
  timeoutMs: number;
  /** Its schema, compiled at the first document of the kind read (most clients never read one). */
  schema: JsonSchema;
  /** The schema's name in a definition error. */
  schemaName: string;
}

/** Each kind's compiled schema, made on first use. */
const validators = new WeakMap<DocumentKind, Validator>();

function validatorOf(kind: DocumentKind): Validator {
  let validator = validators.get(kind);
  if (!validator) {
    validator = compileValidator(kind.schema, kind.schemaName);
    validators.set(kind, validator);
  }
  return validator;
}

/**
 * The document at `source` (an http(s) URL or a local path), valid against its schema. Refused (`unavailable`)
 * when it cannot be read or is not JSON; `invalid_params` when its schema refuses it.
 */
export async function readDiscoveryDocument(
  source: string,
  kind: DocumentKind,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const document = /^https?:\/\//i.test(source)
    ? await fetchDocument(source, kind, signal)
    : await readDocumentFile(source, kind);
  try {
    validatorOf(kind)(document, kind.what);
  } catch (err) {
    throw new McpLiteError(
      'invalid_params',
      `The ${kind.what} at ${source} is not valid: ${(err as Error).message}`,
      undefined,
      { cause: err },
    );
  }
  return document as Record<string, unknown>;
}

async function fetchDocument(url: string, kind: DocumentKind, signal?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(kind.timeoutMs);
  const res = await fetch(url, {
    headers: { accept: [...kind.mediaTypes, 'application/json;q=0.5'].join(', ') },
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new McpLiteError('unavailable', `No ${kind.what} at ${url}: HTTP ${res.status}`);
  }
  // The document's own type, or JSON in general (one kept as a static file).
  const type = res.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type !== 'application/json' && !kind.mediaTypes.includes(type)) {
    await res.body?.cancel();
    throw new McpLiteError(
      'unavailable',
      `${url} is not a ${kind.what}: it answered ${type || 'no content type'}, not ${[...kind.mediaTypes, 'application/json'].join(' or ')}`,
    );
  }
  try {
    return await readBoundedJson(res, kind.maxBytes, documentTooLarge(kind.what, kind.maxBytes));
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new McpLiteError(
      'unavailable',
      `The ${kind.what} at ${url} could not be read: ${(err as Error).message}`,
    );
  }
}

async function readDocumentFile(path: string, kind: DocumentKind): Promise<unknown> {
  const { open } = await import('node:fs/promises');
  let text: string;
  try {
    const file = await open(path, 'r');
    try {
      // One byte past the bound tells a document that is too large from one that fits exactly.
      const buffer = Buffer.alloc(kind.maxBytes + 1);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
      if (bytesRead > kind.maxBytes) throw documentTooLarge(kind.what, kind.maxBytes)();
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await file.close();
    }
  } catch (err) {
    if (err instanceof McpLiteError) throw err;
    throw new McpLiteError(
      'unavailable',
      `The ${kind.what} at ${path} could not be read: ${(err as Error).message}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new McpLiteError(
      'unavailable',
      `The ${kind.what} at ${path} is not JSON: ${(err as Error).message}`,
    );
  }
}
