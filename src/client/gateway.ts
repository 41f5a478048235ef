import { randomUUID } from 'node:crypto';
import { type ContentBlock, richContent } from '../core/content.js';
import { elicit, failure, needMoreResource } from '../core/outcomes.js';
import type { ToolDefinition } from '../core/tool.js';
import type { Client } from './client.js';
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
 */
export async function gatewayTools(client: Client, options: GatewayOptions = {}): Promise<ToolDefinition[]> {
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

  const tools = await client.listTools();
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
          const opts = {
            signal: ctx.signal,
            ...(ctx.streaming ? { onPartial: (value: unknown) => void ctx.partial(value) } : {}),
          };
          if (answered && parked && id) {
            pending.delete(id);
            clearTimeout(parked.timer);
            return toHandlerResult(await parked.outcome.answer(answered.answers, opts));
          }
          if (answered)
            return failure('That question is no longer waiting for an answer', { code: 'expired' });
          return toHandlerResult(await client.call(tool.name, args, opts));
        },
      }),
    );
}
