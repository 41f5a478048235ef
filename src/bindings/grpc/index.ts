/**
 * The MCP-lite gRPC binding (`mcplite/grpc`): `createGrpcBinding` for a grpc-js server of your own, or
 * `listenGrpc` for a ready server with reflection and health. Wire form: docs/grpc.md; proto: proto/mcplite.proto.
 */
export type { GrpcInFlightLimits } from './calls-in-flight.js';
export { type GrpcListening, type GrpcListenOptions, listenGrpc } from './listen.js';
export { defaultMcpProtoPath, MCP_SERVICE_NAME } from './mcp-proto.js';
export { createMcpGrpcService, type McpGrpcService, type McpGrpcServiceOptions } from './mcp-service.js';
export { defaultProtoPath, SERVICE_NAME } from './proto.js';
export { createGrpcBinding, type GrpcBinding, type GrpcBindingOptions } from './service.js';
