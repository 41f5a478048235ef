import type { Span } from '@opentelemetry/api';
import { contextOf, injectCarrier, type TraceCarrier } from './carrier.js';
import { activeTracing } from './otel-api.js';

/** The first round of the elicitation each round's span continues (a round's span is its call's SERVER span). */
const firstRounds = new WeakMap<Span, TraceCarrier>();

/**
 * The span context an elicitation's signed state carries: the first round's, so that every later round links to
 * it (a multi-request or repeated elicitation has several rounds, each a call of its own, often in traces of
 * their own); this round's when it is the first. Undefined while nothing is traced.
 */
export function elicitationTrace(): TraceCarrier | undefined {
  const api = activeTracing();
  const span = api?.trace.getActiveSpan();
  if (api === undefined || span === undefined) return undefined;
  const first = firstRounds.get(span);
  if (first !== undefined) return first;
  const carrier = injectCarrier(api);
  return carrier.traceparent === undefined ? undefined : { traceparent: carrier.traceparent };
}

/**
 * A call answering an elicitation whose state carries the first round's span context: links this round's span
 * to it, and remembers it for a state this round signs in turn.
 */
export function linkToFirstRound(first: Readonly<Record<string, unknown>> | undefined): void {
  if (first === undefined || typeof first.traceparent !== 'string') return;
  const api = activeTracing();
  const span = api?.trace.getActiveSpan();
  if (api === undefined || span === undefined) return;
  const context = api.trace.getSpanContext(contextOf(api, first));
  if (context === undefined || !api.isSpanContextValid(context)) return;
  span.addLink({ context, attributes: { 'mcplite.link': 'elicitation_first_round' } });
  firstRounds.set(span, { traceparent: first.traceparent });
}
