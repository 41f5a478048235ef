import { observeToolCalls } from './observer.js';
import type { Middleware } from './operation.js';
import type { TargetOf } from './operation-target.js';
import { Pipeline } from './pipeline.js';
import type { RateLimiter } from './rate-limit.js';
import type { ToolServerOptions } from './server-options.js';
import { tracingStage } from './telemetry/index.js';

/** What the chain is made of: the built-in stages' sources, the user's middleware and the resolving stage. */
export interface ChainParts {
  telemetry: ToolServerOptions['telemetry'];
  onCallEnd: ToolServerOptions['onCallEnd'];
  limiter: RateLimiter | undefined;
  middleware: readonly Middleware[] | undefined;
  targets: TargetOf;
  /** Finds the tool and checks a call's arguments, so that user middleware sees them checked. */
  resolve: Middleware;
}

/** The one chain every binding's operations walk, and whether tools are resolved before it (no stage to pass). */
export interface AssembledChain {
  pipeline: Pipeline;
  resolveFirst: boolean;
}

/**
 * Assembles the server's middleware chain in its one order: tracing first (so that its span covers every later
 * stage; installed only with an SDK registered), the call observer, the rate limiter (one allowance per caller on
 * every wire), then tool resolution and the user's middleware. User middleware sees a tool call's checked
 * arguments: core finds the tool and checks them after the built-in stages (a rate-limited or observed call may
 * name an unknown tool) or, without any, before the chain.
 */
export function assembleChain(parts: ChainParts): AssembledChain {
  const stages: Middleware[] = [];
  const traced = tracingStage(parts.telemetry, parts.targets);
  if (traced) stages.push(traced);
  if (parts.onCallEnd) stages.push(observeToolCalls(parts.onCallEnd, parts.targets));
  if (parts.limiter) stages.push(parts.limiter.middleware());
  const user = parts.middleware ?? [];
  const resolveFirst = stages.length === 0;
  if (user.length > 0 && !resolveFirst) stages.push(parts.resolve);
  stages.push(...user);
  // The tracing stage sees every operation (a span per listing, read, prompt) as user middleware does.
  return { pipeline: new Pipeline(stages, user.length + (traced ? 1 : 0)), resolveFirst };
}
