import { type Client, type Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { MCP_SERVICE_NAME } from '../bindings/grpc/mcp-proto.js';
import { callMetadata, openStub } from './grpc-transport.js';
import type { ClientLimits } from './limits.js';
import type { Binding } from './types.js';

/** How long asking a gRPC server which service it serves may take. */
const PROBE_MS = 5_000;

/**
 * Which of the two gRPC services a server at a bare `grpc://host:port` serves. mcplite serves both, so MCP-lite's
 * `mcplite.MCPLite` is asked first (its `GetPrompts`, the smallest answer it has); only a server that does not
 * implement it (Google's reference server serves `model_context_protocol.Mcp` alone) is asked for MCP's
 * `ListTools`. An empty message is zero bytes on the wire, so no message types are needed to ask. Any answer but
 * UNIMPLEMENTED (an error included: a refused token still proves the service is there) settles it, and a server
 * that cannot be asked at all is taken as MCP-lite, as before detection existed: its first call says why.
 */
export async function grpcServiceOf(
  target: URL,
  headers: Record<string, string>,
  rootCerts: string | Buffer | undefined,
  limits: ClientLimits,
  signal?: AbortSignal,
): Promise<Extract<Binding, 'grpc' | 'mcp-grpc'>> {
  // A stub of no service: a plain grpc-js Client on the same channel options as the transports'.
  const client = openStub<Client>({}, 'Probe', target, rootCerts, limits);
  try {
    if (!(await unimplemented(client, '/mcplite.MCPLite/GetPrompts', callMetadata(headers, {}, {}), signal)))
      return 'grpc';
    const mcp = await unimplemented(
      client,
      `/${MCP_SERVICE_NAME}/ListTools`,
      callMetadata(headers, {}, {}),
      signal,
    );
    return mcp ? 'grpc' : 'mcp-grpc';
  } finally {
    client.close();
  }
}

/** True when the server answers `path` with UNIMPLEMENTED; false on any other answer or failure. */
function unimplemented(client: Client, path: string, md: Metadata, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const call = client.makeUnaryRequest<Buffer, Buffer>(
      path,
      (empty) => empty,
      (bytes) => bytes,
      Buffer.alloc(0),
      md,
      { deadline: Date.now() + PROBE_MS },
      (err: ServiceError | null) => {
        signal?.removeEventListener('abort', abort);
        resolve(err?.code === status.UNIMPLEMENTED);
      },
    );
    const abort = () => call.cancel();
    signal?.addEventListener('abort', abort, { once: true });
  });
}
