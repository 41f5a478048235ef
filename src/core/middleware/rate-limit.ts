import type { Middleware } from '../operation.js';
import type { RateLimiter } from '../rate-limit.js';

/**
 * The rate limiter as a stage of the chain: each `tools/call` takes a token of its caller first (a refusal is
 * thrown, or rejected when the store is asynchronous), so that a caller cannot get more by switching wires.
 */
export function rateLimitStage(limiter: RateLimiter): Middleware {
  return (op, next) => {
    if (op.method !== 'tools/call') return next();
    const caller = op.caller;
    const admitted = limiter.admit({ principal: caller.principal, remoteAddress: caller.address });
    return admitted ? admitted.then(next) : next();
  };
}
