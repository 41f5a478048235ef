/**
 * The common shape of the cross-binding suite (test/cross-binding-*.test.ts): the normalised reply every binding
 * adapter turns its wire's replies into, the session and adapter interfaces, and the normalisation of MCP-lite's
 * JSON-RPC replies that every JSON-RPC framing of MCP-lite (HTTP, WebSocket, stdio) shares.
 */
import type { ToolServer } from '../../src/index.js';
import type { RunningServer } from '../../src/node.js';

/** The protocol-error classes every binding can express. */
export type ErrorClass =
  | 'invalid_params'
  | 'tool_not_found'
  | 'promise_not_found'
  | 'internal'
  | 'deadline_exceeded'
  | 'unauthenticated'
  | 'cancelled'
  | 'other';

/** One reply, normalised: an outcome with its result fields, or a protocol error with its useful detail. */
export type Reply =
  | {
      kind: 'result';
      response_type: string;
      /** The result fields (content, failure, elicitation, resource_request), volatile values masked. */
      fields: Record<string, unknown>;
      /** Which meta fields are present (their values are per call). */
      meta: {
        promise_token: boolean;
        estimated_completion: boolean;
        timestamp: boolean;
        server_version?: string;
      };
    }
  | { kind: 'error'; class: ErrorClass; detail: Record<string, unknown> };

/** A streamed call, normalised: the partials, then the final reply. */
interface StreamReply {
  partials: unknown[];
  final: Reply;
}

/** A tool as listed, normalised. */
export interface ListedTool {
  name: string;
  type: string;
  description: string;
  inputSchema: unknown;
}

/** A call's normalised reply, plus the per-call values a follow-up call needs (masked in the reply). */
export interface Called {
  reply: Reply;
  token?: string;
  state?: string;
}

/** What a case can do through a binding. */
export interface Session {
  listTools(): Promise<ListedTool[]>;
  call(
    name: string,
    args?: Record<string, unknown>,
    /** The answer to an elicitation: its state with the answers, or with `action` decline / cancel. */
    elicitation?: { state: unknown; answers?: unknown; action?: 'accept' | 'decline' | 'cancel' },
  ): Promise<Called>;
  stream(name: string, args?: Record<string, unknown>): Promise<StreamReply>;
  close(): void;
}

/** The servers a case can run against (served by test/support/cross-binding.ts). */
export type FixtureName = 'open' | 'guarded' | 'guarded-with-token';

/** Where a binding's server listens, and the bearer token to send (if any). */
export interface Endpoint {
  running: RunningServer;
  /** The tool server itself, for the transports that are not a listener (stdio). */
  server: ToolServer;
  token?: string;
}

/** A binding under test: opens a session with its own real client. */
export interface BindingAdapter {
  name: string;
  /** Fixtures this binding cannot express (said why where it is declared). */
  skips?: FixtureName[];
  open(endpoint: Endpoint): Session;
}

/** Masks what differs per call (signed states, promise tokens) so transcripts compare. */
export function mask(fields: Record<string, unknown>): Record<string, unknown> {
  const e = fields.elicitation as Record<string, unknown> | undefined;
  if (e && typeof e.state === 'string') return { ...fields, elicitation: { ...e, state: '<state>' } };
  return fields;
}

/** The detail worth comparing for each class (messages differ by design: gRPC names the tool in it). */
export function errorDetail(cls: ErrorClass, data: Record<string, unknown>): Record<string, unknown> {
  if (cls === 'tool_not_found') {
    return {
      requested_tool: data.requested_tool,
      available_tools: data.available_tools,
      suggestion: data.suggestion,
    };
  }
  if (cls === 'invalid_params' && Array.isArray(data.errors)) {
    // Field names as a person reads them (core may quote them in its messages).
    return { fields: data.errors.map((e: { field: string }) => String(e.field)) };
  }
  return {};
}

let nextId = 1;

/** A fresh JSON-RPC request id, unique across every MCP-lite JSON-RPC adapter of the test file. */
export function nextRpcId(): number {
  return nextId++;
}

// ---- MCP-lite JSON-RPC replies, as every JSON-RPC framing of MCP-lite carries them ----

/** A JSON-RPC result of MCP-lite (HTTP, WebSocket, stdio), normalised. */
export function fromResult(result: Record<string, any>): Reply {
  const { _meta: meta, ...fields } = result;
  return {
    kind: 'result',
    response_type: meta?.response_type ?? 'answer',
    fields: mask(fields),
    meta: {
      promise_token: typeof meta?.promise_token === 'string',
      estimated_completion: typeof meta?.estimated_completion === 'string',
      timestamp: typeof meta?.timestamp === 'string' && !Number.isNaN(Date.parse(meta.timestamp)),
      ...(meta?.server_version !== undefined ? { server_version: meta.server_version } : {}),
    },
  };
}

/** The classes of the JSON-RPC codes that MCP-lite and MCP use alike. */
const SHARED_CODES: Readonly<Record<number, ErrorClass>> = {
  [-32603]: 'internal',
  [-32001]: 'deadline_exceeded',
  [-32002]: 'unauthenticated',
  // MCP's own unauthenticated code (-32002 is its resource-not-found).
  [-32010]: 'unauthenticated',
  [-32800]: 'cancelled',
};

/** The class of a JSON-RPC code both wires use alike; `other` for the rest. */
export function sharedErrorClass(code: number): ErrorClass {
  return SHARED_CODES[code] ?? 'other';
}

/** A JSON-RPC error of MCP-lite, normalised. */
export function fromError(error: { code: number; data?: any }): Reply {
  const data = error.data ?? {};
  let cls: ErrorClass;
  switch (error.code) {
    case -32601:
      cls = data.requested_tool !== undefined ? 'tool_not_found' : 'other';
      break;
    case -32602:
      cls = data.reason === 'unknown' ? 'promise_not_found' : 'invalid_params';
      break;
    default:
      cls = sharedErrorClass(error.code);
  }
  return { kind: 'error', class: cls, detail: errorDetail(cls, data) };
}
