import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import type { CallWire } from '../call-request.js';
import { toMcpLiteError } from '../errors.js';
import { isThenable } from '../handler-value.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { Middleware, Next, Operation } from '../operation.js';
import type { TargetOf } from '../operation-target.js';
import { sha256 } from '../sha256.js';
import { ToolCallOperation } from '../tool-call-operation.js';
import { boundedAttribute } from './bounded-attribute.js';
import { parentContext } from './carrier.js';
import { ATTR, EXECUTE_TOOL, TOOL_ERROR } from './conventions.js';
import { metricsActive, recordServerDuration } from './durations.js';
import { activeTracer, type Otel, otelApi } from './otel-api.js';
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
  if (binding.endsWith('grpc')) return 'grpc';
  if (binding === 'mcp' || binding === 'draft') return 'streamable-http';
  return 'http';
}

/** `network.protocol.name` of a binding (none on stdio). */
function protocolName(binding: string): string | undefined {
  if (binding.endsWith('stdio')) return undefined;
  if (binding.endsWith('ws')) return 'websocket';
  if (binding.endsWith('grpc')) return 'grpc';
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
    return boundedAttribute(JSON.stringify(value) ?? 'null');
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

/**
 * What every operation of one kind carries (one binding and framing, method, target and MCP revision): its span
 * name, the span's attributes, and the duration metric's, kept per error type. Made once per kind and reused, so
 * that an operation copies one object instead of deriving a dozen values; the metric's attribute set is the same
 * object every time.
 */
interface Shape {
  readonly binding: string;
  readonly via: string;
  readonly method: string;
  readonly protocolVersion: string | undefined;
  readonly name: string;
  readonly span: Attributes;
  readonly metric: Attributes;
  readonly failedMetric: Map<string, Attributes>;
}

/**
 * The shapes seen so far, by target (or method, for an operation without one): a lookup by a string the request
 * already holds, then a scan of the few shapes sharing it. A target is one the server has (`TargetOf`), never a
 * name the caller made up; bounded all the same (a server may have many resources), so past this many shapes an
 * operation's shape is made for it alone and not kept.
 */
const shapes = new Map<string, Shape[]>();
let shapeCount = 0;
const MAX_SHAPES = 512;

function shapeOf(op: Operation, target: string | undefined, wire: CallWire | undefined): Shape {
  const binding = op.caller.binding;
  // MCP's one-connection framings share the binding name `mcp` with Streamable HTTP: their wire names them.
  const via = wire?.transport ?? binding;
  const protocolVersion = wire?.protocolVersion;
  const key = target ?? op.method;
  const known = shapes.get(key);
  if (known !== undefined) {
    for (const shape of known) {
      if (
        shape.binding === binding &&
        shape.via === via &&
        shape.method === op.method &&
        shape.protocolVersion === protocolVersion
      )
        return shape;
    }
  }
  const shape = makeShape(op, target, via, protocolVersion);
  if (shapeCount < MAX_SHAPES) {
    shapeCount++;
    if (known === undefined) shapes.set(key, [shape]);
    else known.push(shape);
  }
  return shape;
}

function makeShape(
  op: Operation,
  target: string | undefined,
  via: string,
  protocolVersion: string | undefined,
): Shape {
  // The metric's set: the convention's (method, tool, operation, revision, transport) and the binding.
  const metric: Attributes = {
    [ATTR.methodName]: op.method,
    [ATTR.networkTransport]: networkTransport(via),
    [ATTR.binding]: op.caller.binding,
  };
  if (op.method === 'tools/call') {
    metric[ATTR.operationName] = EXECUTE_TOOL;
    if (target !== undefined) metric[ATTR.toolName] = target;
  }
  if (protocolVersion) metric[ATTR.protocolVersion] = protocolVersion;
  const span: Attributes = { ...metric, [ATTR.transport]: framing(via) };
  const protocol = protocolName(via);
  if (protocol) span[ATTR.networkProtocol] = protocol;
  return {
    binding: op.caller.binding,
    via,
    method: op.method,
    protocolVersion,
    name: target === undefined ? op.method : `${op.method} ${target}`,
    span,
    metric,
    failedMetric: new Map(),
  };
}

/** The metric's attributes of an operation of `shape` that ended with `errorType` (a code of a closed set). */
function metricAttributes(shape: Shape, errorType: string | undefined): Attributes {
  if (errorType === undefined) return shape.metric;
  let failed = shape.failedMetric.get(errorType);
  if (failed === undefined) {
    failed = { ...shape.metric, [ATTR.errorType]: errorType };
    shape.failedMetric.set(errorType, failed);
  }
  return failed;
}

/** How an operation's value reads: a tool call's outcome type (`tool_error` for a failure), else `ok`. */
function outcomeOf(op: Operation, value: unknown): { outcome: string; errorType?: string } {
  if (op.method !== 'tools/call') return { outcome: 'ok' };
  const type = (value as { type?: unknown } | undefined)?.type;
  const outcome = typeof type === 'string' ? type : 'unknown';
  return outcome === 'failure' ? { outcome, errorType: TOOL_ERROR } : { outcome };
}

/**
 * The tracing middleware: a SERVER span per operation named `{mcp.method.name} {target}` (the method alone for a
 * target the server does not have: `targetOf`) with the MCP conventions' attributes, each string from the request
 * bounded (`boundedAttribute`), its parent from `_meta.traceparent` (else the `traceparent` header or gRPC metadata
 * entry), the rest of the chain and the handler run in the span's context (so the handler's own spans, its
 * outgoing calls and its promised work join the trace), and `mcp.server.operation.duration`. A built-in stage,
 * installed first so that the span covers every later stage. With no SDK registered it only calls `next`.
 */
export function tracing(options: TelemetryOptions, targetOf: TargetOf): Middleware {
  return (op, next) => {
    const tracer = activeTracer();
    if (tracer !== undefined) return traced(otelApi() as Otel, tracer, op, next, options, targetOf(op));
    // A meter provider without a tracer provider: the operation is still timed.
    return otelApi() !== undefined && metricsActive() ? timed(op, next, targetOf) : next();
  };
}

function timed(op: Operation, next: Next, targetOf: TargetOf): MaybePromise<unknown> {
  const started = performance.now();
  const done = (errorType: string | undefined) => {
    const shape = shapeOf(op, targetOf(op), wireOf(op).wire);
    recordServerDuration((performance.now() - started) / 1000, metricAttributes(shape, errorType));
  };
  return settle(
    next,
    (value) => done(outcomeOf(op, value).errorType),
    (err) => done(toMcpLiteError(err).code),
  );
}

function traced(
  api: Otel,
  tracer: Tracer,
  op: Operation,
  next: Next,
  options: TelemetryOptions,
  target: string | undefined,
): MaybePromise<unknown> {
  const started = performance.now();
  const { wire, requestId } = wireOf(op);
  const parent = parentContext(api, op.meta, op.caller.headers);
  const shape = shapeOf(op, target, wire);
  // Object.assign, not a spread: V8 (Node 20) makes a spread copy that gains keys afterwards ten times slower.
  const attributes: Attributes = Object.assign({}, shape.span);
  if (requestId !== undefined) attributes[ATTR.requestId] = boundedAttribute(String(requestId));
  if (wire?.sessionId) attributes[ATTR.sessionId] = sessionDigest(wire.sessionId);
  const address = op.caller.address;
  if (address) attributes[ATTR.clientAddress] = boundedAttribute(address);
  if (options.recordArguments && op.arguments !== undefined)
    attributes[ATTR.toolArguments] = json(op.arguments);
  const span = tracer.startSpan(shape.name, { kind: api.SpanKind.SERVER, attributes }, parent);
  const finish = (errorType: string | undefined) => {
    span.end();
    recordServerDuration((performance.now() - started) / 1000, metricAttributes(shape, errorType));
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
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: boundedAttribute(message) });
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
