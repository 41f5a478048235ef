/**
 * The gateway of `mcplite proxy --config`, in this process: a config object parsed as the CLI parses the file, each
 * entry opened by `entrySource` and served through a `Gateway` on every binding of a real HTTP server, with a
 * logger that keeps its lines for the tests to read. Also a real HTTP API that records every request it receives.
 */
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { tmpdir } from 'node:os';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Client, connect } from '../../src/client/index.js';
import type { Logger } from '../../src/core/logger.js';
import { createServer } from '../../src/create-server.js';
import { gatewayCatalog } from '../../src/gateway/catalog.js';
import { parseGatewayConfig } from '../../src/gateway/config.js';
import { Gateway, type GatewayServeOptions } from '../../src/gateway/gateway.js';
import { type EntryDefaults, entrySource } from '../../src/gateway/open-entry.js';
import { type RunningServer, serve } from '../../src/serve.js';

/** One line the gateway logged. */
export interface LogLine {
  level: string;
  msg: string | undefined;
  fields: Record<string, unknown>;
}

/** A logger that keeps every line. */
export function recordingLogger(lines: LogLine[] = []): Logger & { lines: LogLine[] } {
  const at =
    (level: string) =>
    (obj: unknown, msg?: string): void =>
      void lines.push({ level, msg, fields: (obj ?? {}) as Record<string, unknown> });
  const logger = {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

/** A gateway serving a config, and a client of it. */
export interface InProcessGateway {
  gateway: Gateway;
  running: RunningServer;
  client: Client;
  logs: LogLine[];
  close(): Promise<void>;
}

/** Starts a gateway for `config` (`{"mcpServers": {...}}`), waits for every entry's first listing, connects to it. */
export async function startGateway(
  config: object,
  options: {
    env?: NodeJS.ProcessEnv;
    defaults?: Partial<EntryDefaults>;
    gateway?: GatewayServeOptions;
    strict?: boolean;
    /** Options of the gateway's own server (e.g. `toolSearch`). */
    server?: { toolSearch?: boolean };
  } = {},
): Promise<InProcessGateway> {
  const logger = recordingLogger();
  const server = createServer({ name: 'gateway', tools: [], logger, ...options.server });
  const gateway = new Gateway(server, { logger, ...options.gateway });
  try {
    const entries = parseGatewayConfig(JSON.stringify(config), options.env ?? process.env);
    await Promise.all(
      entries.map((entry) =>
        gateway.add(
          entry.name,
          entrySource(entry, { baseDir: tmpdir(), stderr: 'ignore', ...options.defaults }),
          options.strict,
        ),
      ),
    );
  } catch (err) {
    await gateway.close();
    throw err;
  }
  const running = await serve(server, {
    port: 0,
    grpcPort: false,
    aiCatalog: { sources: [gatewayCatalog(gateway, server)] },
  });
  const client = await connect(`${running.url}/mcp-lite/v1/`);
  return {
    gateway,
    running,
    client,
    logs: logger.lines,
    close: async () => {
      await client.close();
      await running.close(200);
      await gateway.close();
    },
  };
}

/**
 * Runs `use` with the official MCP SDK's client on the gateway's Streamable HTTP endpoint (`/mcp`), then closes
 * the client and the gateway, whatever `use` did.
 */
export async function overSdkClient(
  gw: InProcessGateway,
  name: string,
  use: (mcp: SdkClient) => Promise<void>,
): Promise<void> {
  try {
    const mcp = new SdkClient({ name, version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${gw.running.url}/mcp`)));
    try {
      await use(mcp);
    } finally {
      await mcp.close();
    }
  } finally {
    await gw.close();
  }
}

/** One request a recording API received. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

/** A real HTTP API that records what it receives and answers with `handle` (default: the path, as JSON). */
export async function recordingApi(
  handle?: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<{ url: string; origin: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const api = createHttpServer((req, res) => {
    received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    if (handle?.(req, res)) return;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(api.address() as { port: number }).port}`;
  return {
    url: origin,
    origin,
    received,
    close: () =>
      new Promise<void>((r) => {
        api.closeAllConnections();
        api.close(() => r());
      }),
  };
}
