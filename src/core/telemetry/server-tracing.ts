import type { Attributes, Span } from '@opentelemetry/api';
import type { CallWire } from '../call-request.js';
import { toMcpLiteError } from '../errors.js';
import { isThenable } from '../handler-value.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { Middleware, Next, Operation } from '../operation.js';
import { sha256 } from '../sha256.js';
import { ToolCallOperation } from '../tool-call-operation.js';
import { parentContext } from './carrier.js';
import { ATTR, EXECUTE_TOOL, SCOPE, TOOL_ERROR } from './conventions.js';
import { metricsActive, recordServerDuration } from './durations.js';
import { activeTracing, type Otel, otelApi } from './otel-api.js';
import type { TelemetryOptions } from './telemetry-options.js';

/** `network.transport` of a framing: stdio is a pipe, every other framing here runs on TCP. */
function networkTransport(binding: string): string {
  return binding.endsWith('stdio') ? 'pipe' : 'tcp';
}

/** The framing a binding runs on (`mcplite.transport`), from its one name (`op.caller.binding`). */
function framing(binding: string): string {
  if (binding.endsWith('stdio')) return 'stdio';
  if (binding.endsWith('ws')) return 'websocket';
  if (binding === 'mcp-sse') return 'sse';
  if (binding === 'grpc') return 'grpc';
  if (binding === 'mcp' || binding === 'draft') return 'streamable-http';
  return 'http';
}

/** `network.protocol.name` of a binding (none on stdio). */
function protocolName(binding: string): string | undefined {
  if (binding.endsWith('stdio')) return undefined;
  if (binding.endsWith('ws')) return 'websocket';
  if (binding === 'grpc') return 'grpc';
  return 'http';
}

/**
 * `mcp.session.id` as a digest of the session id: without authentication the id is all it takes to use a
 * session, and a trace backend is read by more people than the server; the digest still ties a session's spans
 * together.
 */
function sessionDigest(id: string): string {
  let hex = '';
  for (const byte of sha256(id).subarray(0, 12)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return '[unserialisable]';
  }
}

/** What the wire said beyond the operation (`_meta`, the MCP revision and session, the request id). */
function wireOf(op: Operation): { wire: CallWire | undefined; requestId: string | number | undefined } {
  if (op instanceof ToolCallOperation) return { wire: op.request.wire, requestId: op.request.requestId };
  const wire = (op as { wire?: CallWire }).wire;
  return { wire, requestId: undefined };
}

/** The attributes both the span and the duration metric carry. */
function commonAttributes(op: Operation, wire: CallWire | undefined): Attributes {
  const binding = op.caller.binding;
  // MCP's one-connection framings share the binding name `mcp` with Streamable HTTP: their wire names them.
  const via = wire?.transport ?? binding;
  const attributes: Attributes = {
    [ATTR.methodName]: op.method,
    [ATTR.networkTransport]: networkTransport(via),
    [ATTR.binding]: binding,
    [ATTR.transport]: framing(via),
  };
  if (op.method === 'tools/call') {
    attributes[ATTR.operationName] = EXECUTE_TOOL;
    if (op.name !== undefined) attributes[ATTR.toolName] = op.name;
  }
  const protocol = protocolName(via);
  if (protocol) attributes[ATTR.networkProtocol] = protocol;
  if (wire?.protocolVersion) attributes[ATTR.protocolVersion] = wire.protocolVersion;
  return attributes;
}

/** How an operation's value reads: a tool call's outcome type (`tool_error` for a failure), else `ok`. */
function outcomeOf(op: Operation, value: unknown): { outcome: string; errorType?: string } {
  if (op.method !== 'tools/call') return { outcome: 'ok' };
  const type = (value as { type?: unknown } | undefined)?.type;
  const outcome = typeof type === 'string' ? type : 'unknown';
  return outcome === 'failure' ? { outcome, errorType: TOOL_ERROR } : { outcome };
}

/**
 * The tracing middleware: a SERVER span per operation named `{mcp.method.name} {target}` with the MCP
 * conventions' attributes, its parent from `_meta.traceparent` (else the `traceparent` header or gRPC metadata
 * entry), the rest of the chain and the handler run in the span's context (so the handler's own spans, its
 * outgoing calls and its promised work join the trace), and `mcp.server.operation.duration`. A built-in stage,
 * installed first so that the span covers every later stage. With no SDK registered it only calls `next`.
 */
export function tracing(options: TelemetryOptions = {}): Middleware {
  return (op, next) => {
    const api = activeTracing();
    if (api !== undefined) return traced(api, op, next, options);
    // A meter provider without a tracer provider: the operation is still timed.
    return otelApi() !== undefined && metricsActive() ? timed(op, next) : next();
  };
}

function timed(op: Operation, next: Next): MaybePromise<unknown> {
  const started = performance.now();
  const done = (errorType: string | undefined) => {
    const attributes = commonAttributes(op, wireOf(op).wire);
    if (errorType) attributes[ATTR.errorType] = errorType;
    recordServerDuration((performance.now() - started) / 1000, attributes);
  };
  return settle(
    next,
    (value) => done(outcomeOf(op, value).errorType),
    (err) => done(toMcpLiteError(err).code),
  );
}

function traced(api: Otel, op: Operation, next: Next, options: TelemetryOptions): MaybePromise<unknown> {
  const started = performance.now();
  const { wire, requestId } = wireOf(op);
  const parent = parentContext(api, op.meta, op.caller.headers);
  // Computed once: the span carries these and more, the duration metric these alone.
  const common = commonAttributes(op, wire);
  const attributes: Attributes = { ...common };
  if (requestId !== undefined) attributes[ATTR.requestId] = String(requestId);
  if (wire?.sessionId) attributes[ATTR.sessionId] = sessionDigest(wire.sessionId);
  const address = op.caller.address;
  if (address) attributes[ATTR.clientAddress] = address;
  if (options.recordArguments && op.arguments !== undefined)
    attributes[ATTR.toolArguments] = json(op.arguments);
  const span = api.trace
    .getTracer(SCOPE)
    .startSpan(
      op.name === undefined ? op.method : `${op.method} ${op.name}`,
      { kind: api.SpanKind.SERVER, attributes },
      parent,
    );
  const finish = (errorType: string | undefined) => {
    span.end();
    const recorded: Attributes = { ...common };
    if (errorType) recorded[ATTR.errorType] = errorType;
    recordServerDuration((performance.now() - started) / 1000, recorded);
  };
  return api.context.with(api.trace.setSpan(parent, span), () =>
    settle(
      next,
      (value) => {
        const { outcome, errorType } = outcomeOf(op, value);
        span.setAttribute(ATTR.outcome, outcome);
        if (errorType) {
          span.setAttribute(ATTR.errorType, errorType);
          span.setStatus({ code: api.SpanStatusCode.ERROR });
        }
        if (options.recordResults && op.method === 'tools/call') {
          const recorded = value as { type?: string; result?: unknown };
          span.setAttribute(ATTR.toolResult, json(recorded.type === 'answer' ? recorded.result : recorded));
        }
        finish(errorType);
      },
      (err) => {
        const error = toMcpLiteError(err);
        failSpan(api, span, error.code, error.message);
        finish(error.code);
      },
    ),
  );
}

function failSpan(api: Otel, span: Span, code: string, message: string): void {
  span.setAttribute(ATTR.errorType, code);
  span.setAttribute(ATTR.outcome, `error:${code}`);
  span.setStatus({ code: api.SpanStatusCode.ERROR, message });
}

/** Runs `next`, telling `onValue`/`onError` how it ended: synchronously when it answered synchronously. */
function settle(
  next: Next,
  onValue: (value: unknown) => void,
  onError: (err: unknown) => void,
): MaybePromise<unknown> {
  let result: MaybePromise<unknown>;
  try {
    result = next();
  } catch (err) {
    onError(err);
    throw err;
  }
  if (!isThenable(result)) {
    onValue(result);
    return result;
  }
  return (result as Promise<unknown>).then(
    (value) => {
      onValue(value);
      return value;
    },
    (err) => {
      onError(err);
      throw err;
    },
  );
}
