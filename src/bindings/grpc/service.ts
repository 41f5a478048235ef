import type {
  ServerUnaryCall,
  ServerWritableStream,
  ServiceDefinition,
  sendUnaryData,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { PackageDefinition } from '@grpc/proto-loader';
import type { Principal } from '../../core/auth.js';
import { type MaybePromise, mapMaybe } from '../../core/maybe-promise.js';
import type { CallResult } from '../../core/outcomes.js';
import type { ToolServer } from '../../core/server.js';
import { errorExit } from '../common/error-exit.js';
import { type AnyCall, CallLife, MetadataSource } from './call-life.js';
import { CallsInFlight, type GrpcInFlightLimits, inFlightLimitsOf } from './calls-in-flight.js';
import { BINDING, GrpcMethods } from './methods.js';
import { boundedService, isMalformed, loadMcpLiteProto, rejectionOf } from './proto.js';
import { DEFAULT_STRUCT_LIMITS, type StructLimits } from './struct-bounds.js';
import {
  type GrpcStatusError,
  sessionTrailer,
  toGrpcError,
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

const DONE = Promise.resolve();

/**
 * The MCP-lite gRPC binding (spec section 5): service mcplite.MCPLite with GetTools, CallTool (every outcome;
 * promises are redeemed through CallTool with the name "redeem") and CallToolStream (partials, then a final
 * message with meta). Protocol errors are gRPC statuses (`GRPC_STATUS`) with a google.rpc.Status in the
 * details. Wire form: docs/grpc.md. This file is the grpc-js framing (registration, metadata, deadlines, the
 * in-flight bounds, streams); the methods are `methods.ts`.
 */
export function createGrpcBinding(server: ToolServer, options: GrpcBindingOptions = {}): GrpcBinding {
  const loaded = loadMcpLiteProto(options.protoPath);
  const { packageDefinition } = loaded;
  const service = boundedService(loaded.service, { ...DEFAULT_STRUCT_LIMITS, ...options.structLimits });
  const log = server.logger.child({ binding: BINDING });
  const calls = new CallsInFlight(inFlightLimitsOf(options));
  const methods = new GrpcMethods(server);

  /** Maps a throwable to a status; internal errors are logged with their cause and sent bare. */
  function statusOf(err: unknown): GrpcStatusError {
    return toGrpcError(errorExit(err, log));
  }

  /** Authenticates the call's metadata in core; undefined when nothing has to be waited for. */
  function principalOf(source: MetadataSource) {
    // A server without a hook never builds the metadata's record for it.
    return server.authenticate ? server.authenticateCaller(source.headers, source.target) : undefined;
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
    return methods.callTool(call.request, life, principal, onPartial);
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
        tools = mapMaybe(principalOf(source), (principal) => methods.getTools(source, principal));
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
   * A prompt RPC (GetPrompts, GetPrompt): the request checked and authenticated like the others, answered by
   * its method (`methods.ts`).
   */
  function answerPrompt(
    call: ServerUnaryCall<unknown, unknown>,
    callback: sendUnaryData<unknown>,
    type: string,
    answer: (life: CallLife, principal: Principal | undefined) => MaybePromise<unknown>,
  ): void {
    if (isMalformed(call.request)) {
      callback(statusOf(rejectionOf(call.request, type)));
      return;
    }
    const life = new CallLife(call);
    const reply = async () => answer(life, await principalOf(life));
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
    answerPrompt(call, callback, 'mcplite.Empty', (life, principal) => methods.getPrompts(life, principal));
  implementation.GetPrompt = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) =>
    answerPrompt(call, callback, 'mcplite.PromptRequest', (life, principal) =>
      methods.getPrompt(call.request, life, principal),
    );

  return { service, implementation, packageDefinition };
}
