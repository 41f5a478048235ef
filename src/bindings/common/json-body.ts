import { McpLiteError } from '../../core/errors.js';

/** Nesting deeper than this is refused before parsing, so that no later recursive step can overflow the stack. */
export const MAX_JSON_DEPTH = 64;

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes UTF-8 strictly and parses JSON, refusing invalid UTF-8, excessive nesting and bad syntax with
 * `parse_error`.
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new McpLiteError('parse_error', 'Parse error: the body is not valid UTF-8');
  }
  if (!fewOpenings(text, MAX_JSON_DEPTH) && exceedsDepth(text, MAX_JSON_DEPTH)) {
    throw new McpLiteError('parse_error', `Parse error: JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new McpLiteError('parse_error', `Parse error: ${(err as Error).message}`);
  }
}

/**
 * Whether the text has at most `max` opening brackets in all (strings included), so that no nesting can be
 * deeper. `indexOf` runs natively and skips most of the text, several times faster than the exact scan below,
 * which then only runs for bodies with many brackets.
 */
function fewOpenings(text: string, max: number): boolean {
  let opens = 0;
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) if (++opens > max) return false;
  for (let i = text.indexOf('['); i >= 0; i = text.indexOf('[', i + 1)) if (++opens > max) return false;
  return true;
}

/** A linear scan of bracket depth that skips string contents (and escapes within them). */
function exceedsDepth(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return false;
}

/**
 * Whether a Content-Type header value names JSON (`application/json` or `application/*+json`) in UTF-8: a
 * `charset` parameter other than UTF-8 is refused rather than misread, since the body is decoded as UTF-8.
 */
function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  // What nearly every client sends; it needs none of the parsing below (which splits and lower-cases).
  if (value === 'application/json') return true;
  const [mediaType, ...params] = value.split(';');
  const type = mediaType!.trim().toLowerCase();
  const isJson = type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
  if (!isJson) return false;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return false;
  }
  return true;
}

/**
 * Refuses, with `unsupported_media_type` (HTTP 415), a request body that is not plain JSON: a Content-Type other
 * than JSON, or any Content-Encoding (RFC 9110 15.5.16: a coding the server does not apply is a 415, not a body
 * to misparse as JSON).
 */
export function assertJsonBodyHeaders(headers: Readonly<Record<string, string | undefined>>): void {
  if (!isJsonContentType(headers['content-type'])) {
    throw new McpLiteError(
      'unsupported_media_type',
      'Unsupported Media Type: use Content-Type: application/json',
    );
  }
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw new McpLiteError(
      'unsupported_media_type',
      'Unsupported Media Type: send the body without Content-Encoding',
    );
  }
}
