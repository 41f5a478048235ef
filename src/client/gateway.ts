import { randomUUID } from 'node:crypto';
import { type ContentBlock, richContent } from '../core/content.js';
import { elicit, failure, needMoreResource } from '../core/outcomes.js';
import type { ToolDefinition } from '../core/tool.js';
import type { Client } from './client.js';
import { GatewayUpstream } from './gateway-upstream.js';
import type { ElicitationOutcome, Outcome } from './types.js';

/** Options of `gatewayTools`. */
export interface GatewayOptions {
  /** Most upstream elicitations waiting for a downstream answer at once (default 1000). */
  maxPendingElicitations?: number;
  /** How long one waits for its answer (default 10 minutes). */
  elicitationTtlMs?: number;
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
  const link = upstream instanceof GatewayUpstream ? upstream : GatewayUpstream.fixed(upstream);
  const max = options.maxPendingElicitations ?? 1000;
  const ttl = options.elicitationTtlMs ?? 600_000;
  const pending = new Map<string, { outcome: ElicitationOutcome; timer: NodeJS.Timeout }>();

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

  const toHandlerResult = (outcome: Outcome): unknown => {
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
    }
  };

  const tools = await link.client.listTools();
  return tools
    .filter((t) => t['@type'] !== 'system' && t.name !== 'redeem' && t.name !== 'cancel')
    .map(
      (tool): ToolDefinition => ({
        name: tool.name,
        ...(tool['@type'] ? { '@type': tool['@type'] } : {}),
        ...(tool.title ? { title: tool.title } : {}),
        description: tool.description,
        inputSchema: tool.inputSchema,
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
        handler: async (args: Record<string, unknown>, ctx) => {
          const answered = ctx.elicitation;
          const id = typeof answered?.context === 'string' ? answered.context : undefined;
          const parked = id ? pending.get(id) : undefined;
          // No client-wide timeout (the proxy's bounds only its connecting): the caller's signal decides.
          const opts = {
            signal: ctx.signal,
            timeout: 0,
            ...(ctx.streaming ? { onPartial: (value: unknown) => void ctx.partial(value) } : {}),
          };
          if (answered && parked && id) {
            pending.delete(id);
            clearTimeout(parked.timer);
            // The downstream user's decline goes upstream as one, so the upstream tool decides what it means.
            const next =
              answered.action === 'accept'
                ? parked.outcome.answer(answered.answers, opts)
                : parked.outcome.decline(opts);
            return toHandlerResult(await link.run(() => next, ctx.signal));
          }
          if (answered)
            return failure('That question is no longer waiting for an answer', { code: 'expired' });
          return toHandlerResult(await link.run((client) => client.call(tool.name, args, opts), ctx.signal));
        },
      }),
    );
}
