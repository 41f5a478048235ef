import type {
  ServerUnaryCall,
  ServiceDefinition,
  sendUnaryData,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { PackageDefinition } from '@grpc/proto-loader';
import type { ToolServer } from '../../core/server.js';
import { errorExit } from '../common/error-exit.js';
import { CallLife } from './call-life.js';
import { CallsInFlight, inFlightLimitsOf } from './calls-in-flight.js';
import { BINDING, createMcpGrpcMethods, type McpGrpcRpc } from './mcp-methods.js';
import { defaultMcpProtoPath, loadMcpProto } from './mcp-proto.js';
import { isMalformed, rejectionOf } from './proto.js';
import type { GrpcBindingOptions } from './service.js';
import { DEFAULT_STRUCT_LIMITS } from './struct-bounds.js';
import { toGrpcError } from './wire.js';

/** Options of the MCP-over-gRPC service: those of the MCP-lite gRPC binding, and the proto to serve. */
export interface McpGrpcServiceOptions extends Omit<GrpcBindingOptions, 'protoPath'> {
  /** The mcp.proto to serve (it imports mcp_messages.proto from its folder). Default: the shipped one. */
  mcpProtoPath?: string;
}

/** model_context_protocol.Mcp as grpc-js takes it: `grpcServer.addService(mcp.service, mcp.implementation)`. */
export interface McpGrpcService {
  /** The service definition of model_context_protocol.Mcp, loaded from the proto. */
  service: ServiceDefinition;
  /** The handlers of its eight RPCs. */
  implementation: UntypedServiceImplementation;
  /** The loaded proto package, for server reflection. */
  packageDefinition: PackageDefinition;
}

/**
 * MCP over gRPC (Google's proposed transport: package model_context_protocol, service Mcp), beside
 * mcplite.MCPLite on the same port. Each RPC is the MCP operation of the same name run through the same core
 * calls as every other binding (the chain, authentication from the metadata, scopes, visibility, the in-flight
 * bounds), and answered in MCP's shapes (bindings/mcp/wire.ts) in the proto's form (mcp-wire.ts). Errors are
 * gRPC statuses by the MCP-lite gRPC table (wire.ts `GRPC_STATUS`). The routing metadata (`mcp_tool`,
 * `mcp_resource`, `mcp_prompt`), when sent, must name what the body names. Wire form: docs/grpc.md. This file is
 * the grpc-js framing (registration, metadata, deadlines, the in-flight bounds); the methods are `mcp-methods.ts`.
 */
export function createMcpGrpcService(
  server: ToolServer,
  options: McpGrpcServiceOptions = {},
): McpGrpcService {
  const { packageDefinition, service } = loadMcpProto(options.mcpProtoPath ?? defaultMcpProtoPath(), {
    ...DEFAULT_STRUCT_LIMITS,
    ...options.structLimits,
  });
  const log = server.logger.child({ binding: BINDING });
  const calls = new CallsInFlight(inFlightLimitsOf(options));
  const methods = createMcpGrpcMethods(server);

  /** Counts the call against its connection's and caller's bounds, authenticates it, then runs it. */
  async function run(
    call: ServerUnaryCall<unknown, unknown>,
    type: string,
    rpc: McpGrpcRpc,
  ): Promise<Record<string, unknown>> {
    const request = call.request;
    if (isMalformed(request)) throw rejectionOf(request, `model_context_protocol.${type}`);
    const life = new CallLife(call);
    try {
      life.hold(calls.enterConnection(life.peer));
      const principal = server.authenticate
        ? await server.authenticateCaller(life.headers, life.target)
        : undefined;
      life.hold(calls.enterCaller(server.callerKey({ principal, remoteAddress: life.remoteAddress })));
      if (life.abort.aborted) throw life.abort.reason;
      return await rpc(request as Record<string, unknown>, life, principal);
    } finally {
      life.dispose();
    }
  }

  /** A unary handler: the RPC's answer, or its error as a status (an internal one logged with its cause). */
  function unary(type: string, rpc: McpGrpcRpc) {
    return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      run(call, type, rpc).then(
        (reply) => callback(null, reply),
        (err) => callback(toGrpcError(errorExit(err, log))),
      );
    };
  }

  const implementation: UntypedServiceImplementation = {
    ListTools: unary('ListToolsRequest', methods.listTools),
    CallTool: unary('CallToolRequest', methods.callTool),
    ListResources: unary('ListResourcesRequest', methods.listResources),
    ListResourceTemplates: unary('ListResourceTemplatesRequest', methods.listResourceTemplates),
    ReadResource: unary('ReadResourceRequest', methods.readResource),
    ListPrompts: unary('ListPromptsRequest', methods.listPrompts),
    GetPrompt: unary('GetPromptRequest', methods.getPrompt),
    Complete: unary('CompletionRequest', methods.complete),
  };

  return { service, implementation, packageDefinition };
}
