import type { Settlement } from '../promises/store.js';
import type { PromisedJob } from '../work-queue.js';
import { contextOf, injectCarrier, type TraceCarrier } from './carrier.js';
import { ATTR, EXECUTE_TOOL, SCOPE, TOOL_ERROR } from './conventions.js';
import { activeTracing } from './otel-api.js';

/**
 * The trace context of the running operation, for promised work to carry with its job (`PromisedJob.trace`),
 * so that the work joins the call's trace wherever it runs; undefined while no SDK is registered or no span is
 * active.
 */
export function currentTraceCarrier(): TraceCarrier | undefined {
  const api = activeTracing();
  if (api === undefined || api.trace.getActiveSpan() === undefined) return undefined;
  const carrier = injectCarrier(api);
  return carrier.traceparent === undefined ? undefined : carrier;
}

/**
 * Runs promised work as a span `execute_tool {tool}` in the trace of the call that made the promise (its job's
 * `trace`), here or on a worker of another replica. The settlement carries the work span's context
 * (`Settlement.trace`), so that a `redeem` on any replica links to it.
 */
export function traceWork(job: PromisedJob, run: () => Promise<Settlement>): Promise<Settlement> {
  const api = activeTracing();
  if (api === undefined || job.trace === undefined) return run();
  const parent = contextOf(api, job.trace);
  const span = api.trace.getTracer(SCOPE).startSpan(
    `${EXECUTE_TOOL} ${job.tool}`,
    {
      kind: api.SpanKind.INTERNAL,
      attributes: {
        [ATTR.operationName]: EXECUTE_TOOL,
        [ATTR.toolName]: job.tool,
        [ATTR.methodName]: 'tools/call',
        'mcplite.promised': true,
      },
    },
    parent,
  );
  const context = api.trace.setSpan(parent, span);
  return api.context.with(context, run).then(
    (settlement) => {
      if ('error' in settlement) {
        span.setAttribute(ATTR.errorType, settlement.error.code);
        span.setAttribute(ATTR.outcome, `error:${settlement.error.code}`);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: settlement.error.message });
      } else {
        span.setAttribute(ATTR.outcome, settlement.outcome.type);
        if (settlement.outcome.type === 'failure') {
          span.setAttribute(ATTR.errorType, TOOL_ERROR);
          span.setStatus({ code: api.SpanStatusCode.ERROR });
        }
      }
      span.end();
      settlement.trace = injectCarrier(api, context);
      return settlement;
    },
    (err: unknown) => {
      span.setStatus({ code: api.SpanStatusCode.ERROR });
      span.end();
      throw err;
    },
  );
}

/** Links the active span (a `redeem`) to the promised work that settled (`Settlement.trace`). */
export function linkToWork(carrier: Readonly<Record<string, unknown>> | undefined): void {
  if (carrier === undefined) return;
  const api = activeTracing();
  const active = api?.trace.getActiveSpan();
  if (api === undefined || active === undefined) return;
  const work = api.trace.getSpanContext(contextOf(api, carrier));
  if (work !== undefined && api.isSpanContextValid(work))
    active.addLink({ context: work, attributes: { 'mcplite.link': 'promised_work' } });
}
