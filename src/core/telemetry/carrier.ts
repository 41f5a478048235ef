import type { Context, TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import type { Otel } from './otel-api.js';

/** A W3C trace context as plain strings (`traceparent`, `tracestate`, `baggage`): what `_meta` and jobs carry. */
export type TraceCarrier = Record<string, string>;

/** Reads string values only: `_meta` is the client's JSON, whose other keys may hold anything. */
const stringGetter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

const recordSetter: TextMapSetter<TraceCarrier> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/**
 * The context a call continues: the trace named by `_meta.traceparent` (SEP-414: MCP, MCP-lite, WebSocket,
 * stdio), else by the `traceparent` header (HTTP) or metadata entry (gRPC), with its `tracestate` and `baggage`;
 * the active context when neither names one. Extracted by the propagator the application registered.
 */
export function parentContext(
  api: Otel,
  meta: Readonly<Record<string, unknown>> | undefined,
  headers: Readonly<Record<string, unknown>> | undefined,
): Context {
  const active = api.context.active();
  const carrier =
    meta && typeof meta.traceparent === 'string'
      ? meta
      : headers && typeof headers.traceparent === 'string'
        ? headers
        : undefined;
  return carrier ? api.propagation.extract(active, carrier, stringGetter) : active;
}

/** The trace context of `context` as a carrier (empty when it has no span and no baggage). */
export function injectCarrier(api: Otel, context: Context = api.context.active()): TraceCarrier {
  const carrier: TraceCarrier = {};
  api.propagation.inject(context, carrier, recordSetter);
  return carrier;
}

/** The context a carrier names, under the root context (a job runs apart from whatever is active). */
export function contextOf(api: Otel, carrier: Readonly<Record<string, unknown>>): Context {
  return api.propagation.extract(api.ROOT_CONTEXT, carrier, stringGetter);
}
