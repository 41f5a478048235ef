import type {
  ServerUnaryCall,
  ServerWritableStream,
  ServiceDefinition,
  sendUnaryData,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { PackageDefinition } from '@grpc/proto-loader';
import type { RequestTarget } from '../../core/auth.js';
import type { ElicitationReply } from '../../core/elicitations.js';
import { McpLiteError } from '../../core/errors.js';
import { LazyAbort } from '../../core/lazy-abort.js';
import { type MaybePromise, mapMaybe } from '../../core/maybe-promise.js';
import type { CallResult } from '../../core/outcomes.js';
import type { ToolServer } from '../../core/server.js';
import { BindingCall, BindingCaller, type CallSource } from '../common/binding-call.js';
import { elicitationReplyOf, invalidElicitation } from '../common/elicitation.js';
import { errorExit } from '../common/error-exit.js';
import { listPrompts, renderPrompt } from '../common/prompts.js';
import { CallsInFlight, DEFAULT_IN_FLIGHT_LIMITS, type GrpcInFlightLimits } from './calls-in-flight.js';
import { boundedService, isMalformed, loadMcpLiteProto, rejectionOf } from './proto.js';
import { fromStruct, type StructObject } from './struct.js';
import { DEFAULT_STRUCT_LIMITS, type StructLimits } from './struct-bounds.js';
import {
  type GrpcStatusError,
  SESSION_METADATA_KEY,
  sessionTrailer,
  toGrpcError,
  toGrpcPrompt,
  toGrpcPromptResponse,
  toGrpcTool,
  toPartialResponse,
  toToolResponse,
  type WireGrpcTool,
  type WireToolResponse,
} from './wire.js';

/**
 * Options of the MCP-lite gRPC binding. `maxCallsPerConnection` (default 256) and `maxCallsPerCaller` (default
 * 1024) bound the calls running at once (`GrpcInFlightLimits`).
 */
export interface GrpcBindingOptions extends Partial<GrpcInFlightLimits> {
  /**
   * The mcplite.proto to serve. Default: the one shipped in the package's `proto` folder. Set it when a bundler
   * moved the file away from the code.
   */
  protoPath?: string;
  /**
   * Bounds on the Structs of one ToolRequest (arguments and elicitation answers), checked before decoding:
   * more values is RESOURCE_EXHAUSTED, deeper nesting INVALID_ARGUMENT. Default 10 000 values, 32 levels.
   */
  structLimits?: Partial<StructLimits>;
}

/** The binding as grpc-js takes it: `grpcServer.addService(binding.service, binding.implementation)`. */
export interface GrpcBinding {
  /** The service definition of mcplite.MCPLite, loaded from the proto. */
  service: ServiceDefinition;
  /** The handlers of GetTools, CallTool, CallToolStream, GetPrompts and GetPrompt. */
  implementation: UntypedServiceImplementation;
  /** The loaded proto package, for server reflection. */
  packageDefinition: PackageDefinition;
}

/** mcplite.ToolRequest as the loader decodes it. */
interface RawToolRequest {
  name?: string;
  arguments?: StructObject | null;
  elicitation?: { state?: string; answers?: StructObject | null; action?: string } | null;
}

type AnyCall = ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>;

const DONE = Promise.resolve();
// grpc-js ends the call itself when the deadline passes and reports that as a cancel a moment later.
const DEADLINE_SLACK_MS = 20;

/**
 * The MCP-lite gRPC binding (spec section 5): service mcplite.MCPLite with GetTools, CallTool (every outcome;
 * promises are redeemed through CallTool with the name "redeem") and CallToolStream (partials, then a final
 * message with meta). Protocol errors are gRPC statuses (`GRPC_STATUS`) with a google.rpc.Status in the
 * details. Wire form: docs/grpc.md.
 */
/** The binding's one name (`op.caller.binding`, `ctx.binding`, logs, metrics). */
const BINDING = 'grpc';

export function createGrpcBinding(server: ToolServer, options: GrpcBindingOptions = {}): GrpcBinding {
  const loaded = loadMcpLiteProto(options.protoPath);
  const { packageDefinition } = loaded;
  const service = boundedService(loaded.service, { ...DEFAULT_STRUCT_LIMITS, ...options.structLimits });
  const log = server.logger.child({ binding: BINDING });
  const calls = new CallsInFlight({
    maxCallsPerConnection: options.maxCallsPerConnection ?? DEFAULT_IN_FLIGHT_LIMITS.maxCallsPerConnection,
    maxCallsPerCaller: options.maxCallsPerCaller ?? DEFAULT_IN_FLIGHT_LIMITS.maxCallsPerCaller,
  });
  let listing: { version: number; tools: WireGrpcTool[] } | undefined;

  /** Maps a throwable to a status; internal errors are logged with their cause and sent bare. */
  function statusOf(err: unknown): GrpcStatusError {
    return toGrpcError(errorExit(err, log));
  }

  /** Authenticates the call's metadata in core; undefined when nothing has to be waited for. */
  function principalOf(source: MetadataSource) {
    // A server without a hook never builds the metadata's record for it.
    return server.authenticate ? server.authenticateCaller(source.headers, source.target) : undefined;
  }

  function toolsList(caller: BindingCaller): MaybePromise<{ tools: WireGrpcTool[] }> {
    const catalog = server.listTools();
    return mapMaybe(server.listToolsFor(caller), (current) => {
      // The catalog's own listing is converted once per version; a middleware's listing per request.
      if (current !== catalog) return { tools: current.tools.map(toGrpcTool) };
      if (listing?.version !== current.version) {
        listing = { version: current.version, tools: current.tools.map(toGrpcTool) };
      }
      return { tools: listing.tools };
    });
  }

  /**
   * Counts the call against its connection's and (once authenticated) its caller's bounds, then runs it; rejects
   * with whatever should become the status. What it counts is given back when the call's life is disposed.
   */
  async function run(
    call: AnyCall,
    life: CallLife,
    onPartial?: (data: unknown) => Promise<void>,
  ): Promise<CallResult> {
    life.hold(calls.enterConnection(life.peer));
    const pending = principalOf(life);
    const principal = pending instanceof Promise ? await pending : pending;
    life.hold(calls.enterCaller(server.callerKey({ principal, remoteAddress: life.remoteAddress })));
    const { name, args, elicitation } = readToolRequest(call.request as RawToolRequest);
    // A call whose deadline passed on the way (or while authenticating) is answered without running the tool.
    if (life.abort.aborted) throw life.abort.reason;
    const request = new BindingCall({
      name,
      arguments: args,
      principal,
      signalSource: life,
      onPartial,
      elicitation,
      binding: BINDING,
    });
    request.session = life.headers?.[SESSION_METADATA_KEY];
    return server.callTool(request);
  }

  const implementation: UntypedServiceImplementation = {
    GetTools(call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) {
      if (isMalformed(call.request)) {
        callback(statusOf(rejectionOf(call.request, 'mcplite.Empty')));
        return;
      }
      const source = new MetadataSource(call);
      let tools: MaybePromise<{ tools: WireGrpcTool[] }>;
      try {
        tools = mapMaybe(principalOf(source), (principal) =>
          toolsList(new BindingCaller(BINDING, source, principal)),
        );
      } catch (err) {
        callback(statusOf(err));
        return;
      }
      if (tools instanceof Promise)
        tools.then(
          (t) => callback(null, t),
          (err) => callback(statusOf(err)),
        );
      else callback(null, tools);
    },

    CallTool(call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) {
      const life = new CallLife(call);
      run(call, life).then(
        (result) => {
          life.dispose();
          let response: WireToolResponse;
          try {
            response = toToolResponse(result);
          } catch (err) {
            callback(statusOf(err));
            return;
          }
          callback(null, response, sessionTrailer(result));
        },
        (err) => {
          life.dispose();
          callback(statusOf(err));
        },
      );
    },

    CallToolStream(call: ServerWritableStream<unknown, unknown>) {
      const life = new CallLife(call);
      const { abort } = life;
      // A partial resolves at once while grpc-js buffers little; once write() says "full", it waits for 'drain'
      // (or for the client to go), which is how backpressure reaches ctx.partial.
      const onPartial = (data: unknown): Promise<void> => {
        if (abort.aborted) return DONE;
        if (call.write(toPartialResponse(data))) return DONE;
        return new Promise<void>((resolve) => {
          const go = () => {
            call.off('drain', go);
            stopListening();
            resolve();
          };
          call.on('drain', go);
          const stopListening = abort.onAbort(go);
        });
      };
      run(call, life, onPartial).then(
        (result) => {
          life.dispose();
          if (abort.aborted) return;
          let response: WireToolResponse;
          try {
            response = toToolResponse(result);
          } catch (err) {
            call.emit('error', statusOf(err));
            return;
          }
          call.write(response);
          call.end(sessionTrailer(result));
        },
        (err) => {
          life.dispose();
          const status = statusOf(err);
          if (!abort.aborted) call.emit('error', status);
        },
      );
    },
  };

  /**
   * A prompt RPC (spec 8.1's GetPrompts, and GetPrompt): authenticated like the others, its caller walks the
   * chain (common/prompts.ts); the call's life gives the prompt handler its signal.
   */
  function answerPrompt(
    call: ServerUnaryCall<unknown, unknown>,
    callback: sendUnaryData<unknown>,
    type: string,
    answer: (caller: BindingCaller, life: CallLife) => MaybePromise<unknown>,
  ): void {
    if (isMalformed(call.request)) {
      callback(statusOf(rejectionOf(call.request, type)));
      return;
    }
    const life = new CallLife(call);
    const reply = async () => answer(new BindingCaller(BINDING, life, await principalOf(life)), life);
    reply().then(
      (r) => {
        life.dispose();
        callback(null, r);
      },
      (err) => {
        life.dispose();
        callback(statusOf(err));
      },
    );
  }
  implementation.GetPrompts = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) =>
    answerPrompt(call, callback, 'mcplite.Empty', (caller) =>
      mapMaybe(listPrompts(server, caller), (prompts) => ({ prompts: prompts.map(toGrpcPrompt) })),
    );
  implementation.GetPrompt = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) =>
    answerPrompt(call, callback, 'mcplite.PromptRequest', (caller, life) => {
      const r = call.request as { name?: string; arguments?: Record<string, string> | null };
      return mapMaybe(
        renderPrompt(server, caller, r.name, r.arguments ?? {}, life.signal),
        toGrpcPromptResponse,
      );
    });

  return { service, implementation, packageDefinition };
}

/** What core needs of a ToolRequest. proto3 cannot tell an empty name from a missing one: both are invalid. */
function readToolRequest(raw: RawToolRequest): {
  name: string;
  args: unknown;
  elicitation: ElicitationReply | undefined;
} {
  if (isMalformed(raw)) throw rejectionOf(raw, 'mcplite.ToolRequest');
  const name = raw.name;
  if (!name) {
    throw new McpLiteError('invalid_params', 'Invalid params: "name" must be a string', {
      errors: [{ field: 'name', message: 'is required and must be a string' }],
    });
  }
  const e = raw.elicitation;
  return {
    name,
    args: raw.arguments ? fromStruct(raw.arguments) : undefined,
    elicitation: e
      ? elicitationReplyOf(
          { state: e.state ?? '', answers: fromStruct(e.answers), action: e.action || undefined },
          invalidElicitation,
        )
      : undefined,
  };
}

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
