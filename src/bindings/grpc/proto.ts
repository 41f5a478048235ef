import { existsSync } from 'node:fs';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';
import { McpLiteError } from '../../core/errors.js';
import { packageFile } from '../../package-files.js';
import { checkToolRequestBytes, type StructLimits } from './struct-bounds.js';

/** Fully qualified name of the MCP-lite service, as reflection and the health service know it. */
export const SERVICE_NAME = 'mcplite.MCPLite';

/**
 * How the binding loads the proto. `keepCase` keeps the spec's snake_case names; int64 fields (the epoch-ms
 * timestamps) are read as Numbers, which is exact for any date; enums are names; unset fields stay unset so
 * that a partial message (no meta) is told apart from a final one.
 */
export const LOADER_OPTIONS: Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: false,
  oneofs: true,
};

/**
 * Where the shipped `proto/mcplite.proto` is: at the package's root, whichever layout this module runs from.
 */
export function defaultProtoPath(): string {
  const path = packageFile('proto/mcplite.proto');
  if (!existsSync(path)) {
    throw new Error('mcplite.proto not found: pass protoPath (it ships in the package\'s "proto" folder)');
  }
  return path;
}

/** The loaded proto: the package definition (for reflection) and the service definition (for grpc-js). */
export interface LoadedProto {
  packageDefinition: PackageDefinition;
  service: ServiceDefinition;
}

const cache = new Map<string, LoadedProto>();

/** Marks a request whose bytes are not a valid message (see `tolerantService`). */
export const MALFORMED = Symbol('mcplite.grpc.malformed');

/** A request that could not be decoded; the handler answers it with INVALID_ARGUMENT. */
export interface MalformedRequest {
  [MALFORMED]: unknown;
}

/**
 * The error to answer a placeholder with: the bound it broke (see `boundedService`), else INVALID_ARGUMENT
 * naming the message type.
 */
export function rejectionOf(request: MalformedRequest, type: string): McpLiteError {
  const cause = request[MALFORMED];
  return cause instanceof McpLiteError
    ? cause
    : new McpLiteError('invalid_request', `Invalid request: the message is not a valid ${type}`);
}

/**
 * The service with ToolRequest's Structs bounded (`StructLimits`) before decoding: a request beyond them becomes
 * a placeholder carrying its error, so the handler answers it without the cost of decoding it.
 */
export function boundedService(service: ServiceDefinition, limits: StructLimits): ServiceDefinition {
  const out: Record<string, ServiceDefinition[string]> = { ...service };
  for (const name of ['CallTool', 'CallToolStream']) {
    const method = service[name];
    if (!method) continue;
    const decode = method.requestDeserialize;
    out[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        const refused = checkToolRequestBytes(bytes, limits);
        return refused ? { [MALFORMED]: refused } : decode(bytes);
      },
    };
  }
  return out as ServiceDefinition;
}

/** True for the placeholder of a request whose bytes did not decode. */
export function isMalformed(request: unknown): request is MalformedRequest {
  return typeof request === 'object' && request !== null && MALFORMED in request;
}

/**
 * grpc-js answers a request that fails to decode with INTERNAL, which blames the server for the client's bytes.
 * These deserializers never throw: a malformed message becomes a placeholder, and the handler answers it with
 * INVALID_ARGUMENT like any other bad input.
 */
export function tolerantService(service: ServiceDefinition): ServiceDefinition {
  const out: Record<string, ServiceDefinition[string]> = {};
  for (const [name, method] of Object.entries(service)) {
    const decode = method.requestDeserialize;
    out[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        try {
          return decode(bytes);
        } catch (err) {
          return { [MALFORMED]: err };
        }
      },
    };
  }
  return out as ServiceDefinition;
}

/** Loads (once per path) the MCP-lite proto. */
export function loadMcpLiteProto(protoPath = defaultProtoPath()): LoadedProto {
  let loaded = cache.get(protoPath);
  if (!loaded) {
    const packageDefinition = loadSync(protoPath, LOADER_OPTIONS);
    const service = packageDefinition[SERVICE_NAME] as ServiceDefinition | undefined;
    if (!service || !('CallTool' in service))
      throw new Error(`${protoPath} does not define service ${SERVICE_NAME}`);
    loaded = { packageDefinition, service: tolerantService(service) };
    cache.set(protoPath, loaded);
  }
  return loaded;
}
