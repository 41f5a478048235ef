import type { Client } from '../client/client.js';
import { callScope } from '../client/deadline.js';
import type { Principal } from '../core/auth.js';
import { callerKey } from '../core/caller.js';
import { McpLiteError } from '../core/errors.js';
import type { GatewayUpstream } from './upstream.js';

/** Who runs an exchange: the handler's context (a tool's, a resource reader's, a prompt's). */
export interface RunCaller {
  /** Aborts when the caller goes away. */
  readonly signal: AbortSignal;
  /** The caller as the server counts callers (`ctx.callerKey`); else derived from `principal`. */
  readonly callerKey?: string;
  readonly principal?: Principal | undefined;
}

/**
 * Runs one upstream exchange under the caller's signal, the upstream's in-flight bound, the caller's share of it
 * and its time bound.
 */
export type BoundedRun = <T>(
  caller: RunCaller,
  use: (client: Client, signal: AbortSignal) => Promise<T>,
) => Promise<T>;

/** The bounds of `boundedRun` (`GatewayOptions`' `maxInFlight` and `callTimeoutMs`). */
export interface RunBounds {
  /** Exchanges running upstream at once (default 64). */
  maxInFlight?: number;
  /**
   * Exchanges one caller may run on an upstream at once (default a quarter of `maxInFlight`, at least 1), so that
   * one caller cannot hold every slot and refuse everyone else.
   */
  maxInFlightPerCaller?: number;
  /** Milliseconds one exchange may run (default 300 000; 0: no limit). */
  callTimeoutMs?: number;
}

const runners = new WeakMap<GatewayUpstream, BoundedRun>();

/**
 * The one bounded runner of an upstream: its tool calls, resource reads and prompt renderings share one in-flight
 * count (past `maxInFlight`, default 64, an exchange fails at once with `resource_exhausted` naming the upstream,
 * so one slow upstream cannot hold every request the gateway can take), and each is cut off after
 * `callTimeoutMs` (default 300 000 ms; 0: no limit) with `deadline_exceeded` naming the upstream. One caller
 * (`ctx.callerKey`: its principal, else its address) holds at most `maxInFlightPerCaller` of those slots; past it
 * that caller's exchange fails with `resource_exhausted` (`reason: "caller_busy"`) while others still get in. The
 * bounds of the first caller for an upstream are kept.
 */
export function boundedRun(link: GatewayUpstream, bounds: RunBounds = {}): BoundedRun {
  const known = runners.get(link);
  if (known) return known;
  const maxInFlight = bounds.maxInFlight ?? 64;
  const perCaller = bounds.maxInFlightPerCaller ?? Math.max(1, Math.floor(maxInFlight / 4));
  // Exchanges running per caller; a caller's entry goes with its last exchange, so it holds at most maxInFlight.
  const byCaller = new Map<string, number>();
  const callTimeoutMs = bounds.callTimeoutMs ?? 300_000;
  const label = link.status().upstream;
  let inFlight = 0;
  const run: BoundedRun = async (caller, use) => {
    const key = caller.callerKey ?? callerKey({ principal: caller.principal });
    const mine = byCaller.get(key) ?? 0;
    if (inFlight >= maxInFlight)
      throw new McpLiteError(
        'resource_exhausted',
        `Upstream ${label} already runs ${maxInFlight} calls; try again shortly`,
        { reason: 'upstream_busy', upstream: label, limit: maxInFlight },
      );
    if (mine >= perCaller)
      throw new McpLiteError(
        'resource_exhausted',
        `You already run ${perCaller} calls on upstream ${label}; wait for one to end`,
        { reason: 'caller_busy', upstream: label, limit: perCaller },
      );
    inFlight++;
    byCaller.set(key, mine + 1);
    const scope = callScope(callTimeoutMs, caller.signal);
    try {
      return await link.run((client) => use(client, scope.signal), scope.signal);
    } catch (err) {
      // The timer fired first: the scope's reason is its own, not the caller's.
      if (scope.signal.aborted && scope.signal.reason !== caller.signal.reason)
        throw new McpLiteError(
          'deadline_exceeded',
          `Upstream ${label} did not answer within ${callTimeoutMs} ms`,
          { reason: 'upstream_timeout', upstream: label, limit: callTimeoutMs },
        );
      throw err;
    } finally {
      inFlight--;
      const left = (byCaller.get(key) ?? 1) - 1;
      if (left === 0) byCaller.delete(key);
      else byCaller.set(key, left);
      scope.dispose();
    }
  };
  runners.set(link, run);
  return run;
}
