import { McpLiteError } from '../../core/errors.js';

/** Bounds on gRPC calls running at once; past one, a call is answered RESOURCE_EXHAUSTED without running. */
export interface GrpcInFlightLimits {
  /**
   * Most calls running at once on one connection (an HTTP/2 session, told apart by its peer address and port),
   * as on the other one-connection transports (WebSocket, stdio). Default 256.
   */
  maxCallsPerConnection: number;
  /**
   * Most calls running at once for one caller (`ToolServer.callerKey`: the principal, else the address, IPv6 by
   * its prefix) across all of its connections. Default 1024.
   */
  maxCallsPerCaller: number;
}

/** The defaults of `GrpcInFlightLimits`. */
const DEFAULT_IN_FLIGHT_LIMITS: GrpcInFlightLimits = {
  maxCallsPerConnection: 256,
  maxCallsPerCaller: 1024,
};

/** The bounds `options` sets, with the defaults for those it leaves out. */
export function inFlightLimitsOf(options: Partial<GrpcInFlightLimits>): GrpcInFlightLimits {
  return {
    maxCallsPerConnection: options.maxCallsPerConnection ?? DEFAULT_IN_FLIGHT_LIMITS.maxCallsPerConnection,
    maxCallsPerCaller: options.maxCallsPerCaller ?? DEFAULT_IN_FLIGHT_LIMITS.maxCallsPerCaller,
  };
}

/**
 * The gRPC binding's count of calls running per connection and per caller. A held call costs its waits, buffers
 * and handler state until it ends (a `redeem` may wait minutes), so one client could otherwise hold thousands and
 * slow everyone else. Counts live only while calls run: an idle connection or caller holds no entry.
 */
export class CallsInFlight {
  private readonly perConnection = new Map<string, number>();
  private readonly perCaller = new Map<string, number>();

  constructor(private readonly limits: GrpcInFlightLimits) {}

  /** Counts a call on connection `peer` (grpc-js `getPeer()`); throws `resource_exhausted` past the bound. */
  enterConnection(peer: string): () => void {
    const max = this.limits.maxCallsPerConnection;
    return enter(this.perConnection, peer, max, () => {
      return new McpLiteError(
        'resource_exhausted',
        `Too many calls in flight on this connection (at most ${max}): wait for answers first`,
        { limit: max, scope: 'connection' },
      );
    });
  }

  /** Counts a call of `caller` (a caller key); throws `resource_exhausted` past the bound. */
  enterCaller(caller: string): () => void {
    const max = this.limits.maxCallsPerCaller;
    return enter(this.perCaller, caller, max, () => {
      return new McpLiteError(
        'resource_exhausted',
        `Too many calls in flight from this caller (at most ${max}): wait for answers first`,
        { limit: max, scope: 'caller' },
      );
    });
  }
}

/** Adds one to `key`'s count or throws `refusal()`; the returned release takes it back once, however often called. */
function enter(
  counts: Map<string, number>,
  key: string,
  max: number,
  refusal: () => McpLiteError,
): () => void {
  const held = counts.get(key) ?? 0;
  if (held >= max) throw refusal();
  counts.set(key, held + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (counts.get(key) ?? 1) - 1;
    if (left > 0) counts.set(key, left);
    else counts.delete(key);
  };
}
