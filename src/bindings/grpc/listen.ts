import type { Server as NetServer } from 'node:net';
import { type ChannelOptions, Server, ServerCredentials } from '@grpc/grpc-js';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation, protoPath as healthProtoPath } from 'grpc-health-check';
import type { ToolServer } from '../../core/server.js';
import { inFlightLimitsOf } from './calls-in-flight.js';
import { reflectionDescriptors, withDescriptors } from './descriptors.js';
import { MCP_SERVICE_NAME } from './mcp-proto.js';
import { createMcpGrpcService, type McpGrpcServiceOptions } from './mcp-service.js';
import { LOADER_OPTIONS, SERVICE_NAME } from './proto.js';
import { createGrpcBinding, type GrpcBindingOptions } from './service.js';

/** Options of `listenGrpc`. */
export interface GrpcListenOptions extends GrpcBindingOptions, Pick<McpGrpcServiceOptions, 'mcpProtoPath'> {
  /** Port; 0 picks a free one. Default 0. */
  port?: number;
  /** Address to bind. Default 127.0.0.1. */
  host?: string;
  /**
   * Largest message accepted or sent, in bytes; a bigger one ends the call with RESOURCE_EXHAUSTED.
   * Default 4 MiB (the same as the HTTP binding's body limit).
   */
  maxMessageBytes?: number;
  /** Largest request message accepted, when it should differ from `maxMessageBytes` (which then bounds replies). */
  maxRequestBytes?: number;
  /** Serve gRPC server reflection (v1 and v1alpha), so grpcurl and friends need no .proto. Default true. */
  reflection?: boolean;
  /**
   * Serve MCP over gRPC (model_context_protocol.Mcp, proto/mcp.proto) beside mcplite.MCPLite, with the same
   * bounds and authentication. Default true.
   */
  mcp?: boolean;
  /** Serve the standard health service (grpc.health.v1.Health). Default true. */
  health?: boolean;
  /** TLS or other credentials. Default: insecure (plaintext), meant for loopback or behind a proxy. */
  credentials?: ServerCredentials;
  /**
   * Most connections at once; further ones are closed on arrival (clients see UNAVAILABLE and retry), so a
   * flood of sockets cannot run the process out of file descriptors. Default 900. 0 turns the limit off.
   */
  maxConnections?: number;
  /**
   * Most calls (HTTP/2 streams) one connection may have open at once, announced to the client in its SETTINGS, so
   * a client with more to send queues them on its side rather than in this server. Default twice
   * `maxCallsPerConnection` (512): calls past that bound but within this one are refused at once with
   * RESOURCE_EXHAUSTED, and a client that ignores the setting has its extra streams refused by HTTP/2 itself.
   * 0 announces no limit.
   */
  maxStreamsPerConnection?: number;
  /** More grpc-js server options (keepalive, concurrency limits, ...); they win over the ones set here. */
  channelOptions?: ChannelOptions;
}

/** A listening gRPC server. */
export interface GrpcListening {
  /** The grpc-js server (add more services before traffic arrives, or inspect it). */
  server: Server;
  /** The bound port. */
  port: number;
  /** The bound address. */
  host: string;
  /** `host:port`, as gRPC clients take it. */
  address: string;
  /** The health service, to report NOT_SERVING during maintenance; undefined when turned off. */
  health: HealthImplementation | undefined;
  /**
   * Stops accepting calls (health turns NOT_SERVING), lets running calls finish for up to `graceMs`, then
   * cancels what is left. Does not close the ToolServer: `serve` does that once every binding has stopped.
   */
  close(graceMs?: number): Promise<void>;
}

const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * Serves a tool server over gRPC (mcplite.MCPLite and, unless `mcp: false`, model_context_protocol.Mcp), with
 * reflection and the health service.
 */
export async function listenGrpc(
  toolServer: ToolServer,
  options: GrpcListenOptions = {},
): Promise<GrpcListening> {
  const binding = createGrpcBinding(toolServer, options);
  const max = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const maxStreams = options.maxStreamsPerConnection ?? 2 * inFlightLimitsOf(options).maxCallsPerConnection;
  const server = new Server({
    'grpc.max_receive_message_length': options.maxRequestBytes ?? max,
    'grpc.max_send_message_length': max,
    // Without it, one connection can open thousands of calls that each cost the server until answered.
    ...(maxStreams > 0 ? { 'grpc.max_concurrent_streams': maxStreams } : {}),
    ...options.channelOptions,
  });
  server.addService(binding.service, binding.implementation);
  const mcp = (options.mcp ?? true) ? createMcpGrpcService(toolServer, options) : undefined;
  if (mcp) server.addService(mcp.service, mcp.implementation);
  const services = mcp ? [SERVICE_NAME, MCP_SERVICE_NAME] : [SERVICE_NAME];

  let health: HealthImplementation | undefined;
  if (options.health ?? true) {
    health = new HealthImplementation({
      '': 'SERVING',
      ...Object.fromEntries(services.map((s) => [s, 'SERVING'])),
    });
    health.addToServer(server);
  }
  if (options.reflection ?? true) {
    const described: PackageDefinition = {
      ...binding.packageDefinition,
      ...mcp?.packageDefinition,
      ...(health ? healthPackage() : {}),
    };
    // proto-loader's own descriptors are broken for strict clients (see descriptors.ts): serve corrected ones.
    const corrected = withDescriptors(described, reflectionDescriptors(described));
    // @grpc/reflection pins its own proto-loader types; the package definition is the same shape.
    new ReflectionService(corrected as never).addToServer(server);
  }

  const host = options.host ?? '127.0.0.1';
  const bindHost = host.includes(':') ? `[${host}]` : host;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      `${bindHost}:${options.port ?? 0}`,
      options.credentials ?? ServerCredentials.createInsecure(),
      (err, bound) => (err ? reject(err) : resolve(bound)),
    );
  });

  limitConnections(server, options.maxConnections ?? 900);

  let closing: Promise<void> | undefined;
  return {
    server,
    port,
    host,
    address: `${bindHost}:${port}`,
    health,
    close(graceMs = 10_000) {
      closing ??= new Promise<void>((resolve) => {
        health?.setStatus('', 'NOT_SERVING');
        for (const name of services) health?.setStatus(name, 'NOT_SERVING');
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      return closing;
    },
  };
}

/**
 * grpc-js has no connection limit of its own; its listening node servers (a private field, read defensively so
 * a grpc-js without it just goes unlimited) take node's `maxConnections`.
 */
function limitConnections(server: Server, max: number): void {
  if (max <= 0) return;
  const listening = (server as unknown as { http2Servers?: Map<NetServer, unknown> }).http2Servers;
  if (!(listening instanceof Map)) return;
  for (const netServer of listening.keys()) netServer.maxConnections = max;
}

let healthDefinition: PackageDefinition | undefined;

/** grpc.health.v1 as a package definition, so reflection lists the health service too. */
function healthPackage(): PackageDefinition {
  healthDefinition ??= loadSync(healthProtoPath, LOADER_OPTIONS);
  return healthDefinition;
}
