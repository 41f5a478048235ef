import { randomUUID } from 'node:crypto';
import type { Client } from '../client/client.js';
import type { CallOutcome, ElicitationOutcome, ToolInfo } from '../client/types.js';
import { viewUriOf } from '../client/views.js';
import type { ToolAudience } from '../core/apps/ui.js';
import { type ContentBlock, richContent } from '../core/content.js';
import { elicit, failure, needMoreResource, unhandledOutcome } from '../core/outcomes.js';
import { printable } from '../core/printable.js';
import type { ToolDefinition } from '../core/tool.js';
import { boundedRun } from './bounded-run.js';
import { GatewayUpstream } from './upstream.js';

/** A listed tool's view link and audience as a definition's `ui` and `visibility`, when they are well-formed. */
function upstreamUi(tool: ToolInfo): Pick<ToolDefinition, 'ui' | 'visibility'> {
  const uri = viewUriOf(tool);
  const visibility = tool.ui?.visibility;
  const audience =
    Array.isArray(visibility) &&
    visibility.length > 0 &&
    visibility.every((v) => v === 'model' || v === 'app')
      ? (visibility as ToolAudience[])
      : undefined;
  return {
    ...(uri !== undefined && uri.length <= MAX_VIEW_URI ? { ui: { uri } } : {}),
    ...(audience ? { visibility: audience } : {}),
  };
}

/** The longest upstream view URI kept (the catalog's own bound). */
const MAX_VIEW_URI = 512;

/** Options of `gatewayTools`. */
export interface GatewayOptions {
  /** Most upstream elicitations waiting for a downstream answer at once (default 1000). */
  maxPendingElicitations?: number;
  /** How long one waits for its answer (default 10 minutes). */
  elicitationTtlMs?: number;
  /**
   * Most calls running upstream at once (default 64): past it a call fails at once with `resource_exhausted`
   * naming the upstream, so one slow upstream cannot hold every request the gateway can take.
   */
  maxInFlight?: number;
  /**
   * Most calls one caller (its principal, else its address) runs on an upstream at once (default a quarter of
   * `maxInFlight`, at least 1): past it that caller's call fails with `resource_exhausted` (`reason:
   * "caller_busy"`) while the upstream's other slots stay free for everyone else.
   */
  maxInFlightPerCaller?: number;
  /**
   * How long one upstream call may run (default 300 000 ms; 0: no limit), whether its caller waits or it became a
   * promise: past it the upstream call is cancelled and ends in `deadline_exceeded` naming the upstream.
   */
  callTimeoutMs?: number;
  /**
   * Most tools taken from the upstream (default 1000): the rest are left out (`onTruncated` tells), so that an
   * upstream listing thousands of tools cannot flood the catalog every client lists.
   */
  maxTools?: number;
  /** Told how many tools the upstream listed when more than `maxTools` (the proxy logs it). */
  onTruncated?: (listed: number, kept: number) => void;
}

/**
 * The tools of an upstream server (any binding, typically an MCP server over stdio or HTTP) as mcplite tool
 * definitions whose handlers call upstream: serve them with `createServer` + `serve` and the upstream server
 * gains every mcplite binding, and its long calls become promises (the server's answer budget). Partials are
 * passed on; an upstream elicitation becomes a downstream one. Handshake-revision MCP servers hold an
 * elicitation open on their side, so the gateway keeps the waiting upstream call (bounded in count and time)
 * under an id carried in the signed elicitation state.
 *
 * Given a `GatewayUpstream` (what `mcplite proxy` does), calls go through it: an upstream that broke is reopened
 * with backoff, and calls meanwhile fail at once with `unavailable` naming it. A plain `Client` is used as is.
 */
export async function gatewayTools(
  upstream: Client | GatewayUpstream,
  options: GatewayOptions = {},
): Promise<ToolDefinition[]> {
  return upstreamToolLister(upstream, options)();
}

/**
 * What `gatewayTools` does, kept for listing again: each call of the returned function lists the upstream's tools
 * afresh (after a `list_changed`, or once a restarted upstream is back), and every listing's handlers share one
 * set of waiting elicitations and one in-flight count, so a re-listing loses no question a user is answering.
 */
export function upstreamToolLister(
  upstream: Client | GatewayUpstream,
  options: GatewayOptions = {},
  onListed?: (tools: readonly ToolInfo[]) => void,
): () => Promise<ToolDefinition[]> {
  const link = upstream instanceof GatewayUpstream ? upstream : GatewayUpstream.fixed(upstream);
  const max = options.maxPendingElicitations ?? 1000;
  const ttl = options.elicitationTtlMs ?? 600_000;
  const pending = new Map<string, { outcome: ElicitationOutcome; timer: NodeJS.Timeout }>();
  const maxTools = options.maxTools ?? 1000;

  const bounded = boundedRun(link, options);

  const park = (outcome: ElicitationOutcome) => {
    if (pending.size >= max)
      return failure('Too many elicitations waiting for an answer', { code: 'resource_exhausted' });
    const id = randomUUID();
    const timer = setTimeout(() => {
      pending.delete(id);
      void outcome.decline().catch(() => {});
    }, ttl);
    timer.unref();
    pending.set(id, { outcome, timer });
    return outcome.requests
      ? elicit({
          message: outcome.message,
          requests: Object.fromEntries(
            Object.entries(outcome.requests).map(([k, r]) => [
              k,
              { message: r.message, schema: r.requestedSchema },
            ]),
          ),
          context: id,
        })
      : elicit({ message: outcome.message, schema: outcome.requestedSchema, context: id });
  };

  const toHandlerResult = (outcome: CallOutcome): unknown => {
    switch (outcome.type) {
      case 'answer':
        // MCP blocks other than text (images, resources) pass through as they are.
        return outcome.content?.some((b) => (b as { type?: string }).type !== 'text')
          ? richContent(outcome.content as ContentBlock[])
          : outcome.value;
      case 'failure':
        return failure(outcome.message, {
          ...(outcome.code ? { code: outcome.code } : {}),
          ...(outcome.details !== undefined ? { details: outcome.details } : {}),
        });
      case 'request-for-more-resource': {
        const { type: _t, meta: _m, ...request } = outcome;
        return needMoreResource(request);
      }
      case 'elicitation':
        return park(outcome);
      case 'promise':
        return failure(`The upstream work is still running; redeem ${outcome.token} upstream`, {
          code: 'pending',
        });
      default:
        return unhandledOutcome(outcome);
    }
  };

  return async () => {
    const listed = (await link.run((client) => client.listTools())).filter(
      (t) => t['@type'] !== 'system' && t.name !== 'redeem' && t.name !== 'cancel',
    );
    if (listed.length > maxTools) options.onTruncated?.(listed.length, maxTools);
    onListed?.(listed);
    return listed.slice(0, maxTools).map(
      (tool): ToolDefinition => ({
        name: tool.name,
        ...(tool['@type'] ? { '@type': tool['@type'] } : {}),
        // An upstream's control characters (ESC, BEL) are shown, never re-served raw to a client's terminal or UI.
        ...(tool.title ? { title: printable(tool.title, false) } : {}),
        description: printable(tool.description),
        inputSchema: tool.inputSchema,
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
        // Its view (MCP Apps) stays linked, to the URI the gateway serves it at (transforms.ts), and its
        // audience stays as declared: an app-only tool is listed to Apps hosts only, and calls its own upstream.
        ...upstreamUi(tool),
        handler: async (args: Record<string, unknown>, ctx) => {
          const answered = ctx.elicitation;
          const id = typeof answered?.context === 'string' ? answered.context : undefined;
          const parked = id ? pending.get(id) : undefined;
          // No client-wide timeout (the proxy bounds only its connecting): the caller and `callTimeoutMs` decide.
          const opts = (signal: AbortSignal) => ({
            signal,
            timeout: 0,
            ...(ctx.streaming ? { onPartial: (value: unknown) => void ctx.partial(value) } : {}),
          });
          if (answered && parked && id) {
            pending.delete(id);
            clearTimeout(parked.timer);
            // The downstream user's decline goes upstream as one, so the upstream tool decides what it means.
            const { outcome } = parked;
            return toHandlerResult(
              await bounded(ctx, (_client, signal) =>
                answered.action === 'accept'
                  ? outcome.answer(answered.answers, opts(signal))
                  : outcome.decline(opts(signal)),
              ),
            );
          }
          if (answered)
            return failure('That question is no longer waiting for an answer', { code: 'expired' });
          return toHandlerResult(
            await bounded(ctx, (client, signal) => client.call(tool.name, args, opts(signal))),
          );
        },
      }),
    );
  };
}
