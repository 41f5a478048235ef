import { observeToolCalls } from './middleware/observe-calls.js';
import { rateLimitStage } from './middleware/rate-limit.js';
import { resolveToolsStage } from './middleware/resolve-tools.js';
import { tracingStage } from './middleware/tracing.js';
import type { Middleware } from './operation.js';
import type { TargetOf } from './operation-target.js';
import { Pipeline } from './pipeline.js';
import type { RateLimiter } from './rate-limit.js';
import type { ToolServerOptions } from './server-options.js';
import type { ToolCallOperation } from './tool-call-operation.js';

/** What the chain is made of: the built-in stages' sources and the user's middleware. */
export interface ChainParts {
  telemetry: ToolServerOptions['telemetry'];
  onCallEnd: ToolServerOptions['onCallEnd'];
  limiter: RateLimiter | undefined;
  middleware: readonly Middleware[] | undefined;
  targets: TargetOf;
  /** Finds a call's tool and checks its arguments, keeping a refusal on the operation (`ToolResolution.screen`). */
  screen: (op: ToolCallOperation) => void;
}

/**
 * Assembles the server's middleware chain in its one order, every stage a named one of core/middleware/: tracing
 * first (so that its span covers every later stage; installed only with an SDK registered), the call observer, the
 * rate limiter (one allowance per caller on every wire), then tool resolution and the user's middleware. User
 * middleware sees a tool call's checked arguments; without it the resolution stage is left out, and the chain's end
 * resolves the call (a rate-limited or observed call may name an unknown tool).
 */
export function assembleChain(parts: ChainParts): Pipeline {
  const stages: Middleware[] = [];
  const traced = tracingStage(parts.telemetry, parts.targets);
  if (traced) stages.push(traced);
  if (parts.onCallEnd) stages.push(observeToolCalls(parts.onCallEnd, parts.targets));
  if (parts.limiter) stages.push(rateLimitStage(parts.limiter));
  const user = parts.middleware ?? [];
  if (user.length > 0) stages.push(resolveToolsStage(parts.screen));
  stages.push(...user);
  // The tracing stage sees every operation (a span per listing, read, prompt) as user middleware does.
  return new Pipeline(stages, user.length + (traced ? 1 : 0));
}
