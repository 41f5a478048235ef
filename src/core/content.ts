/**
 * Rich content blocks (text, image, audio, embedded resources, resource links), the shapes MCP uses and that
 * prompts and resources are made of. Defined in core so that tools, prompts and resources describe content once;
 * bindings without a place for a block kind render it as plain JSON.
 */

/** Optional hints about a block or a resource (who it is for, how important it is). */
export interface ContentAnnotations {
  audience?: Array<'user' | 'assistant'>;
  priority?: number;
  lastModified?: string;
}

/** The contents of a resource as read: text or base64 `blob`, with its URI and media type. */
export interface ResourceContents {
  uri: string;
  mimeType?: string;
  /** UTF-8 text; exactly one of `text` and `blob` is set. */
  text?: string;
  /** Base64-encoded bytes. */
  blob?: string;
  _meta?: Record<string, unknown>;
}

/** One block of content. */
export type ContentBlock =
  | { type: 'text'; text: string; annotations?: ContentAnnotations; _meta?: Record<string, unknown> }
  | {
      type: 'image';
      data: string;
      mimeType: string;
      annotations?: ContentAnnotations;
      _meta?: Record<string, unknown>;
    }
  | {
      type: 'audio';
      data: string;
      mimeType: string;
      annotations?: ContentAnnotations;
      _meta?: Record<string, unknown>;
    }
  | {
      type: 'resource';
      resource: ResourceContents;
      annotations?: ContentAnnotations;
      _meta?: Record<string, unknown>;
    }
  | {
      type: 'resource_link';
      uri: string;
      name: string;
      title?: string;
      description?: string;
      mimeType?: string;
      annotations?: ContentAnnotations;
      _meta?: Record<string, unknown>;
    };

// Symbol-branded so that plain data returned by a handler is never mistaken for rich content.
const RICH = Symbol.for('mcplite.rich-content');

/** A tool answer made of content blocks (and, optionally, a structured value beside them). */
export interface RichContent {
  readonly [RICH]: true;
  content: ContentBlock[];
  /** A JSON value for clients that read structured results (MCP `structuredContent`). */
  structured?: unknown;
}

/**
 * Answers a tool call with content blocks, e.g. an image. MCP sends the blocks as they are; bindings without
 * content blocks send `{ content }` (and `structured` as `structuredContent`) as the answer's JSON.
 */
export function richContent(content: ContentBlock[], structured?: unknown): RichContent {
  return { [RICH]: true, content, ...(structured !== undefined ? { structured } : {}) } as RichContent;
}

/** Whether an answer was made with `richContent`. */
export function isRichContent(value: unknown): value is RichContent {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[RICH] === true;
}
