/**
 * The neutral request/response that bindings speak and adapters produce. Adapters convert cheaply: the node
 * adapter makes no `Request` object, and the body is read only when (and as far as) a binding asks for it.
 */

/** An incoming HTTP request, independent of the server framework. */
export interface NeutralRequest {
  /** Upper-case method. */
  method: string;
  /** The path, without the query string. */
  path: string;
  /** The query string without its `?` (empty or absent when there is none); few bindings read it. */
  readonly query?: string;
  /** Header values by lower-case name (repeated headers joined with ", "). */
  headers: Readonly<Record<string, string | undefined>>;
  /**
   * Reads the whole body, refusing with `payload_too_large` as soon as it passes `limit` bytes: a declared
   * Content-Length over the limit is refused before a byte is read, and nothing past the limit is buffered.
   */
  readBody(limit: number): Promise<Uint8Array>;
  /** Aborts when the client goes away before the response is complete. */
  readonly signal: AbortSignal;
  /** The peer's address, when the adapter knows it. */
  remoteAddress?: string;
}

/** A body: whole, or a stream of chunks the adapter writes as they come (respecting backpressure). */
export type NeutralBody = string | Uint8Array | AsyncIterable<string | Uint8Array>;

/** An outgoing HTTP response. */
export interface NeutralResponse {
  status: number;
  headers: Record<string, string>;
  body?: NeutralBody;
  /**
   * Aborted by the producer of a streamed body that gives up on its client (one that stopped reading past a
   * bound): the adapter then drops the connection at once rather than keep what it holds for a reader that never
   * comes.
   */
  abandoned?: AbortSignal;
}

/**
 * A binding (or a combination of them) as adapters see it. A handler declines a request ("not mine") by returning
 * undefined at once, so that a composition tries the next one without waiting; a promise means it took the
 * request, and a promise of undefined is answered 404 without trying any other handler.
 */
export type NeutralHandler = (request: NeutralRequest) => Promise<NeutralResponse | undefined> | undefined;
