import type { Client } from '../client/client.js';
import { callScope } from '../client/deadline.js';
import { McpLiteError } from '../core/errors.js';
import type { GatewayUpstream } from './upstream.js';

/** Runs one upstream exchange under the caller's signal, the upstream's in-flight bound and its time bound. */
export type BoundedRun = <T>(
  caller: AbortSignal,
  use: (client: Client, signal: AbortSignal) => Promise<T>,
) => Promise<T>;

/** The bounds of `boundedRun` (`GatewayOptions`' `maxInFlight` and `callTimeoutMs`). */
export interface RunBounds {
  /** Exchanges running upstream at once (default 64). */
  maxInFlight?: number;
  /** Milliseconds one exchange may run (default 300 000; 0: no limit). */
  callTimeoutMs?: number;
}

const runners = new WeakMap<GatewayUpstream, BoundedRun>();

/**
 * The one bounded runner of an upstream: its tool calls, resource reads and prompt renderings share one in-flight
 * count (past `maxInFlight`, default 64, an exchange fails at once with `resource_exhausted` naming the upstream,
 * so one slow upstream cannot hold every request the gateway can take), and each is cut off after
 * `callTimeoutMs` (default 300 000 ms; 0: no limit) with `deadline_exceeded` naming the upstream. The bounds of
 * the first caller for an upstream are kept.
 */
export function boundedRun(link: GatewayUpstream, bounds: RunBounds = {}): BoundedRun {
  const known = runners.get(link);
  if (known) return known;
  const maxInFlight = bounds.maxInFlight ?? 64;
  const callTimeoutMs = bounds.callTimeoutMs ?? 300_000;
  const label = link.status().upstream;
  let inFlight = 0;
  const run: BoundedRun = async (caller, use) => {
    if (inFlight >= maxInFlight)
      throw new McpLiteError(
        'resource_exhausted',
        `Upstream ${label} already runs ${maxInFlight} calls; try again shortly`,
        { reason: 'upstream_busy', upstream: label, limit: maxInFlight },
      );
    inFlight++;
    const scope = callScope(callTimeoutMs, caller);
    try {
      return await link.run((client) => use(client, scope.signal), scope.signal);
    } catch (err) {
      // The timer fired first: the scope's reason is its own, not the caller's.
      if (scope.signal.aborted && scope.signal.reason !== caller.reason)
        throw new McpLiteError(
          'deadline_exceeded',
          `Upstream ${label} did not answer within ${callTimeoutMs} ms`,
          { reason: 'upstream_timeout', upstream: label, limit: callTimeoutMs },
        );
      throw err;
    } finally {
      inFlight--;
      scope.dispose();
    }
  };
  runners.set(link, run);
  return run;
}
