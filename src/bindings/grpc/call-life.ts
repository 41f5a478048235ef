import type { ServerUnaryCall, ServerWritableStream } from '@grpc/grpc-js';
import type { RequestTarget } from '../../core/auth.js';
import { McpLiteError } from '../../core/errors.js';
import { LazyAbort } from '../../core/lazy-abort.js';
import type { CallSource } from '../common/binding-call.js';

/** A grpc-js call of either kind the services answer: unary, or server streaming. */
export type AnyCall = ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>;

// grpc-js ends the call itself when the deadline passes and reports that as a cancel a moment later.
const DEADLINE_SLACK_MS = 20;

/** A call's metadata and peer, read on first use: the caller of a GetTools listing, and the base of `CallLife`. */
export class MetadataSource {
  private headersOnce: Readonly<Record<string, string | undefined>> | undefined;
  private peerOnce: string | undefined;

  constructor(protected readonly call: AnyCall) {}

  /** grpc-js's peer string, "address:port": one per open connection, which is how a connection is told apart. */
  get peer(): string {
    this.peerOnce ??= this.call.getPeer();
    return this.peerOnce;
  }

  get remoteAddress(): string | undefined {
    return peerAddress(this.peer);
  }

  /** The call as the HTTP/2 request it is (POST to the method's path), which a DPoP proof in `dpop` binds. */
  get target(): RequestTarget {
    return { method: 'POST', path: this.call.getPath(), authority: this.call.getHost() };
  }

  /** The call's metadata as headers (`ctx.headers`, `op.caller.headers`), read on first use. */
  get headers(): Readonly<Record<string, string | undefined>> {
    this.headersOnce ??= metadataHeaders(this.call);
    return this.headersOnce;
  }
}

/**
 * One call's life: `abort` fires when the client cancels or hangs up, or its deadline passes (the reason says
 * which), so the handler's `ctx.signal` stops the work; that AbortSignal is made only when read (`LazyAbort`).
 * `dispose` stops listening once the call has ended, because grpc-js reports every finished call as "cancelled"
 * too, and gives back the call's in-flight slots. It is the call's `CallSource` (the peer address).
 */
export class CallLife extends MetadataSource implements CallSource {
  readonly abort = new LazyAbort();
  /** The client's deadline, in epoch milliseconds (Infinity without one). */
  readonly deadline: number;
  private readonly onCancelled: () => void;
  private readonly releases: Array<() => void> = [];

  constructor(call: AnyCall) {
    super(call);
    const raw = call.getDeadline();
    const deadline = raw instanceof Date ? raw.getTime() : raw;
    this.deadline = deadline;
    this.onCancelled = () => {
      const late = Number.isFinite(deadline) && Date.now() >= deadline - DEADLINE_SLACK_MS;
      this.abort.abort(
        late
          ? new McpLiteError('deadline_exceeded', "The client's deadline passed")
          : new McpLiteError('cancelled', 'The client cancelled the call'),
      );
    };
    // grpc-js reports a deadline that passed before the handler started only later (as a cancel), after the tool
    // would have run: the deadline itself is what says the call is already over.
    if (call.cancelled || (Number.isFinite(deadline) && Date.now() >= deadline)) this.onCancelled();
    else call.once('cancelled', this.onCancelled);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Keeps a counted slot (`CallsInFlight`) until the call ends. */
  hold(release: () => void): void {
    this.releases.push(release);
  }

  dispose(): void {
    this.call.off('cancelled', this.onCancelled);
    for (const release of this.releases) release();
  }
}

/** gRPC metadata as headers: text entries by their (lower-case) key; binary (`-bin`) entries are left out. */
function metadataHeaders(call: AnyCall): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  const map = call.metadata.getMap();
  for (const key of Object.keys(map)) {
    const v = map[key];
    if (typeof v === 'string') headers[key] = v;
  }
  // getMap keeps the first of repeated entries; repeated DPoP proofs are joined as HTTP joins repeated headers, so
  // core refuses them as it does there (exactly one proof per request).
  const proofs = call.metadata.get('dpop');
  if (proofs.length > 1) headers.dpop = proofs.map(String).join(', ');
  return headers;
}

/** The address part of a grpc-js peer string ("ipv4:127.0.0.1:5000", "ipv6:[::1]:5000", "127.0.0.1:5000"). */
function peerAddress(peer: string): string | undefined {
  const bare = peer.replace(/^ipv[46]:/, '');
  const bracketed = /^\[([^\]]+)\]/.exec(bare);
  if (bracketed) return bracketed[1];
  const colon = bare.lastIndexOf(':');
  return colon > 0 ? bare.slice(0, colon) : bare || undefined;
}
