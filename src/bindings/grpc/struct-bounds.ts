import { McpLiteError } from '../../core/errors.js';

/**
 * Bounds on the google.protobuf.Struct values of a ToolRequest (its `arguments` and elicitation `answers`),
 * checked on the wire bytes before protobufjs decodes them. Decoding costs about 3 µs per value, so a 4 MiB
 * message of tiny fields held the event loop for over a second; this walk allocates nothing and refuses such a
 * message after counting, before any object is built.
 */
export interface StructLimits {
  /** Most google.protobuf.Value nodes in one request, all Structs together. */
  maxValues: number;
  /** Deepest nesting of Structs and lists. */
  maxDepth: number;
}

/** Default bounds: far beyond any tool's arguments, and a few tens of milliseconds of decoding at most. */
export const DEFAULT_STRUCT_LIMITS: StructLimits = { maxValues: 10_000, maxDepth: 32 };

/** Thrown inside the walk to stop it; turned into the caller's error below. */
class Stop {
  constructor(readonly error: McpLiteError | undefined) {}
}

/**
 * Where a message's Structs are, by field number: `'struct'` for a google.protobuf.Struct field, a nested shape
 * for a message field (a map field is a repeated entry message: key 1, value 2). Fields not named are skipped.
 */
export interface StructShape {
  readonly [field: number]: 'struct' | StructShape;
}

/** mcplite.ToolRequest: `arguments` (2) is a Struct; `elicitation` (3) holds `answers` (2), a Struct. */
const TOOL_REQUEST: StructShape = { 2: 'struct', 3: { 2: 'struct' } };

/**
 * The error for a ToolRequest whose Structs exceed `limits` (RESOURCE_EXHAUSTED for too many values,
 * INVALID_ARGUMENT for too deep), or undefined when it is within them. Bytes that are not a well-formed message
 * are left to the decoder, which reports them as malformed.
 */
export function checkToolRequestBytes(bytes: Uint8Array, limits: StructLimits): McpLiteError | undefined {
  return checkStructBytes(bytes, limits, TOOL_REQUEST);
}

/** `checkToolRequestBytes` for any message, its Structs found through `shape`: all of them count together. */
export function checkStructBytes(
  bytes: Uint8Array,
  limits: StructLimits,
  shape: StructShape,
): McpLiteError | undefined {
  let values = 0;
  let pos = 0;

  function varint(end: number): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (pos >= end) throw new Stop(undefined);
      const b = bytes[pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
    throw new Stop(undefined);
  }

  /** Calls `onField(number, start, end)` for each length-delimited field in [start, end), skips the others. */
  function fields(start: number, end: number, onField: (field: number, from: number, to: number) => void) {
    pos = start;
    while (pos < end) {
      const key = varint(end);
      const wire = key & 7;
      const field = Math.floor(key / 8);
      if (wire === 0) varint(end);
      else if (wire === 1) pos += 8;
      else if (wire === 5) pos += 4;
      else if (wire === 2) {
        const length = varint(end);
        const from = pos;
        const to = from + length;
        if (to > end) throw new Stop(undefined);
        onField(field, from, to);
        pos = to;
      } else throw new Stop(undefined);
      if (pos > end) throw new Stop(undefined);
    }
  }

  function struct(start: number, end: number, depth: number): void {
    if (depth > limits.maxDepth) throw new Stop(tooDeep(limits.maxDepth));
    // Struct.fields (1) is a map: entries of key (1) and value (2).
    fields(start, end, (f, from, to) => {
      if (f === 1) fields(from, to, (g, a, b) => g === 2 && value(a, b, depth));
    });
  }

  function value(start: number, end: number, depth: number): void {
    if (++values > limits.maxValues) throw new Stop(tooMany(limits.maxValues));
    // Value.struct_value (5), Value.list_value (6) holding values (1).
    fields(start, end, (f, from, to) => {
      if (f === 5) struct(from, to, depth + 1);
      else if (f === 6) {
        if (depth + 1 > limits.maxDepth) throw new Stop(tooDeep(limits.maxDepth));
        fields(from, to, (g, a, b) => g === 1 && value(a, b, depth + 1));
      }
    });
  }

  function message(start: number, end: number, of: StructShape): void {
    fields(start, end, (f, from, to) => {
      const inner = of[f];
      if (inner === 'struct') struct(from, to, 1);
      else if (inner) message(from, to, inner);
    });
  }

  try {
    message(0, bytes.length, shape);
  } catch (err) {
    if (err instanceof Stop) return err.error;
    throw err;
  }
  return undefined;
}

function tooMany(max: number): McpLiteError {
  return new McpLiteError(
    'payload_too_large',
    `Payload Too Large: the request's Structs hold more than ${max} values`,
    { limit: max },
  );
}

function tooDeep(max: number): McpLiteError {
  return new McpLiteError('invalid_params', `Invalid arguments: nested deeper than ${max} levels`, {
    limit: max,
  });
}
