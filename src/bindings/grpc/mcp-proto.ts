import { dirname, join } from 'node:path';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { defaultProtoPath, LOADER_OPTIONS, type LoadedProto, MALFORMED, tolerantService } from './proto.js';
import { checkStructBytes, type StructLimits, type StructShape } from './struct-bounds.js';

/** Fully qualified name of the MCP-over-gRPC service, as reflection and the health service know it. */
export const MCP_SERVICE_NAME = 'model_context_protocol.Mcp';

/** Where the shipped `proto/mcp.proto` is: beside mcplite.proto (it imports `mcp_messages.proto` from there). */
export function defaultMcpProtoPath(): string {
  return join(dirname(defaultProtoPath()), 'mcp.proto');
}

/**
 * RequestFields' Structs: `metadata` (1), each dependent response's (6, a map: value 2) elicit_result (9)
 * `content` (2), and `resume_data` (7).
 */
const COMMON: StructShape = { 1: 'struct', 6: { 2: { 9: { 2: 'struct' } } }, 7: 'struct' };

/** Every request's `common` (1); CallToolRequest's `request` (2) holds `arguments` (2). */
const SHAPES: Readonly<Record<string, StructShape>> = {
  CallTool: { 1: COMMON, 2: { 2: 'struct' } },
};

const cache = new Map<string, LoadedProto>();

/**
 * Loads (once per path) model_context_protocol.Mcp, its requests decoded tolerantly (a malformed one becomes a
 * placeholder the handler answers with INVALID_ARGUMENT) and their Structs bounded by `limits` before decoding.
 */
export function loadMcpProto(protoPath: string, limits: StructLimits): LoadedProto {
  let loaded = cache.get(protoPath);
  if (!loaded) {
    const packageDefinition = loadSync(protoPath, { ...LOADER_OPTIONS, includeDirs: [dirname(protoPath)] });
    const service = packageDefinition[MCP_SERVICE_NAME] as ServiceDefinition | undefined;
    if (!service || !('CallTool' in service))
      throw new Error(`${protoPath} does not define service ${MCP_SERVICE_NAME}`);
    loaded = { packageDefinition, service: tolerantService(service) };
    cache.set(protoPath, loaded);
  }
  return { packageDefinition: loaded.packageDefinition, service: bounded(loaded.service, limits) };
}

/** The service with each request's Structs counted on the wire bytes first (struct-bounds.ts). */
function bounded(service: ServiceDefinition, limits: StructLimits): ServiceDefinition {
  const out: Record<string, ServiceDefinition[string]> = {};
  for (const [name, method] of Object.entries(service)) {
    const shape = SHAPES[name] ?? { 1: COMMON };
    const decode = method.requestDeserialize;
    out[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        const refused = checkStructBytes(bytes, limits, shape);
        return refused ? { [MALFORMED]: refused } : decode(bytes);
      },
    };
  }
  return out as ServiceDefinition;
}
