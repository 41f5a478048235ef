import { ATTR, EXECUTE_TOOL, SCOPE, TOOL_ERROR } from '../core/telemetry/conventions.js';
import { metricsActive, recordClientDuration } from '../core/telemetry/durations.js';
import { activeTracing, otelNow } from '../core/telemetry/otel-api.js';
import { currentTraceCarrier } from '../core/telemetry/work-tracing.js';
import { toClientError } from './wire-errors.js';

/**
 * Runs one client operation as a CLIENT span `{method} {target}` (MCP conventions) with
 * `mcp.client.operation.duration`, the operation made in the span's context so that the transports put its
 * trace context into `_meta` and the headers or gRPC metadata (`WireContext.trace`). Without a registered SDK it
 * only runs the operation.
 */
export function traceClientOperation<T extends { type?: string }>(
  method: string,
  target: string | undefined,
  binding: string,
  run: () => Promise<T>,
): Promise<T> {
  if (otelNow() === undefined) return run();
  const api = activeTracing();
  // Neither a tracer nor a meter provider registered: nothing to record, nothing to pay.
  if (api === undefined && !metricsActive()) return run();
  const started = performance.now();
  const attributes: Record<string, string> = { [ATTR.methodName]: method, [ATTR.binding]: binding };
  if (method === 'tools/call' && target !== undefined) {
    attributes[ATTR.operationName] = EXECUTE_TOOL;
    attributes[ATTR.toolName] = target;
  }
  const span = api?.trace.getTracer(SCOPE).startSpan(target === undefined ? method : `${method} ${target}`, {
    kind: api.SpanKind.CLIENT,
    attributes,
  });
  const finish = (errorType: string | undefined, outcome: string) => {
    if (span && api) {
      span.setAttribute(ATTR.outcome, outcome);
      if (errorType) {
        span.setAttribute(ATTR.errorType, errorType);
        span.setStatus({ code: api.SpanStatusCode.ERROR });
      }
      span.end();
    }
    const recorded: Record<string, string> = { ...attributes };
    if (errorType) recorded[ATTR.errorType] = errorType;
    recordClientDuration((performance.now() - started) / 1000, recorded);
  };
  const running = span && api ? api.context.with(api.trace.setSpan(api.context.active(), span), run) : run();
  return running.then(
    (value) => {
      const outcome = value?.type ?? 'ok';
      finish(outcome === 'failure' ? TOOL_ERROR : undefined, outcome);
      return value;
    },
    (err: unknown) => {
      const code = toClientError(err).code;
      finish(code, `error:${code}`);
      throw err;
    },
  );
}

/** The trace context a transport sends with the current operation (in `_meta` and headers), if it is traced. */
export function outgoingTrace(): Record<string, string> | undefined {
  return currentTraceCarrier();
}
