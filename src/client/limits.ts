import { McpLiteError } from '../core/errors.js';

/**
 * What the client will read from a server, at most. A server (or anything in its place) that sends more is cut
 * off with `payload_too_large` (a byte bound) or `resource_exhausted` (the partial count), so a reply that never
 * ends costs bounded memory in every user of the client: the CLI, the inspector, the adapters and the gateway.
 */
export interface ClientLimits {
  /**
   * Bytes of one response: a JSON body, one SSE event (the result of a streamed call is one event), one stdio
   * line (one JSON-RPC message), one gRPC message. Default 16 MiB.
   */
  maxResponseBytes: number;
  /** Bytes of one streamed response in all (an SSE body, or every partial of a call together). Default 64 MiB. */
  maxStreamBytes: number;
  /** Partial results of one call. Default 10,000. */
  maxPartials: number;
}

/** The defaults of `ClientLimits` (docs/client.md, "Bounds"). */
export const DEFAULT_LIMITS: Readonly<ClientLimits> = {
  maxResponseBytes: 16 * 1024 * 1024,
  maxStreamBytes: 64 * 1024 * 1024,
  maxPartials: 10_000,
};

/** The limits of a client: each option given (a positive number), else its default. */
export function limitsOf(options: Partial<ClientLimits>): ClientLimits {
  const pick = (key: keyof ClientLimits) => {
    const value = options[key];
    return typeof value === 'number' && value > 0 ? value : DEFAULT_LIMITS[key];
  };
  return {
    maxResponseBytes: pick('maxResponseBytes'),
    maxStreamBytes: pick('maxStreamBytes'),
    maxPartials: pick('maxPartials'),
  };
}

/**
 * The error of a bound reached: `payload_too_large` for bytes, `resource_exhausted` for the partial count; the
 * message and `data.bound` name the option, so the user knows what to raise.
 */
export function boundExceeded(bound: keyof ClientLimits, limit: number): McpLiteError {
  const what = bound === 'maxPartials' ? `${limit} partial results` : `${limit} bytes`;
  return new McpLiteError(
    bound === 'maxPartials' ? 'resource_exhausted' : 'payload_too_large',
    `The server sent more than the client reads (${bound}: ${what})`,
    { reason: 'client_bound', bound, limit },
  );
}

/**
 * `onPartial` under the call's partial bounds: past `maxPartials` partials, or `maxStreamBytes` of them (as
 * JSON), it calls `stop` with the error (which aborts the call on every wire) and throws it (which ends a read
 * loop at once).
 */
export function boundedPartials(
  onPartial: (value: unknown) => void,
  limits: ClientLimits,
  stop: (err: McpLiteError) => void,
): (value: unknown) => void {
  let count = 0;
  let bytes = 0;
  return (value) => {
    count++;
    bytes += Buffer.byteLength(JSON.stringify(value) ?? '');
    const bound =
      count > limits.maxPartials
        ? 'maxPartials'
        : bytes > limits.maxStreamBytes
          ? 'maxStreamBytes'
          : undefined;
    if (bound) {
      const err = boundExceeded(bound, limits[bound]);
      stop(err);
      throw err;
    }
    onPartial(value);
  };
}
