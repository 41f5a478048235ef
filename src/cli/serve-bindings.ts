import { format } from 'node:util';
import type { Logger } from '../core/logger.js';
import { loadOptional } from '../optional-peers.js';
import type { RunningServer, ServeOptions } from '../serve.js';
import { InvalidArgumentError } from './commander.js';
import { portOrOff } from './parse.js';

/** The gRPC port `--grpc` (or `--all`) opens when given none. */
export const DEFAULT_GRPC_PORT = 50_051;

/** The flags of `mcplite serve` that choose its bindings. */
export interface BindingFlags {
  /** `--grpc [port]`: also serve MCP-lite gRPC, on its own port (`true`: the default port; `false`: none). */
  grpc?: number | boolean;
  /** `--grpc-port <n|off>`: the gRPC port; a number turns gRPC on, as `--grpc <n>` does. */
  grpcPort?: number | false;
  /** `--ws`: MCP and MCP-lite over WebSocket, on the HTTP port. */
  ws?: boolean;
  /** `--legacy-sse`: MCP's legacy HTTP+SSE transport (2024-11-05), on the HTTP port. */
  legacySse?: boolean;
  /** `--webtools`: the Webtools binding, on the HTTP port. */
  webtools?: boolean;
  /** `--all`: every binding (a gRPC port can still be chosen, or gRPC left out with `--grpc-port off`). */
  all?: boolean;
}

/**
 * The bindings `mcplite serve` opens, as `serve` options. By default only what a tool author expects: one HTTP
 * port with MCP (Streamable HTTP at /mcp, what MCP clients speak) and MCP-lite HTTP (this toolkit's own wire, and
 * the one its client, CLI and inspector use). Every other binding is one flag away: WebSocket, legacy SSE and
 * Webtools cost no port but are more surface to expose and to secure than most servers need, and gRPC takes a
 * port of its own, which a second server on the same machine would find taken.
 */
export function chosenBindings(
  flags: BindingFlags,
): Pick<ServeOptions, 'grpcPort' | 'wsPath' | 'mcpWs' | 'legacySse' | 'webtoolsPath'> {
  const all = flags.all === true;
  return {
    grpcPort: grpcPortOf(flags, all),
    ...(all || flags.ws ? {} : { wsPath: false, mcpWs: false }),
    ...(all || flags.legacySse ? {} : { legacySse: false }),
    ...(all || flags.webtools ? {} : { webtoolsPath: false }),
  };
}

/** The gRPC port asked for, or false: an explicit port (or `off`) wins over `--grpc` and `--all`. */
function grpcPortOf(flags: BindingFlags, all: boolean): number | false {
  if (flags.grpcPort !== undefined) return flags.grpcPort;
  if (typeof flags.grpc === 'number' || flags.grpc === false) return flags.grpc;
  if (flags.grpc === true || all) return DEFAULT_GRPC_PORT;
  return false;
}

/**
 * `--grpc [port]` (commander parses a bare `--grpc` as true): a port, or `off`. Anything else is most likely the
 * module, which an optional value swallows when it follows the flag: say how to write it.
 */
export function grpcFlag(value: string): number | false {
  try {
    return portOrOff(value);
  } catch {
    throw new InvalidArgumentError(
      `expected a port (0 picks a free one) or off, got "${value}"; a module goes before --grpc (mcplite serve ./tools.js --grpc)`,
    );
  }
}

/** The bindings a running server left off, as the flags that turn them on (for its "listening" log record). */
export function offBindings(
  running: Pick<RunningServer, 'grpc' | 'ws' | 'legacySse'>,
  bindings: Pick<ServeOptions, 'webtoolsPath'>,
): string[] {
  return [
    ...(running.ws ? [] : ['--ws']),
    ...(running.legacySse ? [] : ['--legacy-sse']),
    ...(bindings.webtoolsPath === false ? ['--webtools'] : []),
    ...(running.grpc ? [] : ['--grpc']),
  ];
}

/**
 * Sends grpc-js's own log lines (its console by default) to the CLI's log at debug level: a taken gRPC port made it
 * print "E No address added out of total 1 resolved" to stderr before the one clear line that names the port and
 * the flag. Loaded only when gRPC is served, as the binding itself is.
 */
export async function routeGrpcJsLogs(logger: Logger): Promise<void> {
  const grpc = await loadOptional('grpc', () => import('@grpc/grpc-js'));
  const forward = (...args: unknown[]) => logger.debug({ grpc: format(...args) }, 'grpc-js');
  grpc.setLogger({ error: forward, info: forward, debug: forward });
}
