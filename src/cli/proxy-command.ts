import { type Command, Option } from 'commander';
import { connect } from '../client/client.js';
import { gatewayTools } from '../client/gateway.js';
import { GatewayUpstream, type UpstreamStatus, upstreamLabel } from '../client/gateway-upstream.js';
import type { Binding } from '../client/types.js';
import { bearerAuth } from '../core/auth.js';
import { McpLiteError } from '../core/errors.js';
import { createServer } from '../create-server.js';
import { serve } from '../serve.js';
import { CliError } from './errors.js';
import { createLogger, LOG_LEVELS, type LogLevel } from './logger.js';
import { integer, normaliseBase, portOrOff } from './parse.js';
import { stopOnSignals } from './shutdown.js';
import { moduleTargetError } from './target.js';

/** How long opening the upstream may take, at start and on each attempt to reopen it. */
const OPEN_TIMEOUT_MS = 30_000;

interface ProxyOptions {
  port: number;
  host: string;
  base: string;
  grpcPort: number | false;
  token?: string[];
  answerBudget: number;
  binding?: Binding;
  upstreamToken?: string;
  logLevel: LogLevel;
}

/**
 * `mcplite proxy <target>`: a gateway that serves an existing server (an MCP server over stdio or HTTP, or any
 * binding the client speaks) over every mcplite binding. Its calls that outlive the answer budget become
 * promises, so a stdio-only server gains statelessness, promises and gRPC without a line changed.
 */
export function registerProxy(program: Command): void {
  program
    .command('proxy')
    .description(
      'serve an existing MCP server (command line or URL) over MCP-lite HTTP, gRPC, stateless MCP and Webtools',
    )
    .argument('<target>', 'the upstream: an MCP server command line, an MCP URL, or any mcplite target')
    .option('--port <n>', 'HTTP port (0 picks a free one)', integer(0, 65535), 3000)
    .option('--host <addr>', 'address to bind', '127.0.0.1')
    .option('--base <path>', 'base path of the MCP-lite endpoints', '/mcp-lite/v1/')
    .option('--grpc-port <n>', 'gRPC port, or "off"', portOrOff, 50051)
    .option('--token <token...>', 'require this bearer token from clients (repeatable)')
    .option('--answer-budget <ms>', 'calls running longer than this become promises', integer(1), 10_000)
    .addOption(
      new Option('--binding <binding>', 'how to reach the upstream (default: detect)').choices([
        'mcp-lite-http',
        'grpc',
        'mcp',
        'stdio',
        'webtools',
      ]),
    )
    .option('--upstream-token <token>', 'bearer token for the upstream')
    .addOption(new Option('--log-level <level>', 'log level').choices(LOG_LEVELS).default('info'))
    .action(async (target: string, o: ProxyOptions) => {
      const notATarget = moduleTargetError(target);
      if (notATarget) throw notATarget;
      const logger = createLogger(o.logLevel);
      const label = upstreamLabel(target);
      // Until the proxy serves, a signal exits at once: through `exit`, so an upstream being started is ended too.
      const abandon = () => process.exit(1);
      process.once('SIGINT', abandon);
      process.once('SIGTERM', abandon);
      let upstream: GatewayUpstream;
      try {
        upstream = await GatewayUpstream.open(
          target,
          () =>
            connect(target, {
              ...(o.binding ? { binding: o.binding } : {}),
              ...(o.upstreamToken ? { token: o.upstreamToken } : {}),
              stderr: 'inherit',
              // Bounds connecting (the client then ends a stdio child that never answers); calls set their own.
              timeout: OPEN_TIMEOUT_MS,
            }),
          {
            label,
            openTimeoutMs: OPEN_TIMEOUT_MS,
            onChange: (status) => logUpstream(logger, status),
          },
        );
      } catch (err) {
        const e = err as McpLiteError;
        const cause = e.data?.reason === 'unreachable' ? e.data.cause : undefined;
        throw new CliError(`cannot reach ${label}: ${typeof cause === 'string' ? cause : e.message}`, 1);
      }
      let tools: Awaited<ReturnType<typeof gatewayTools>>;
      try {
        tools = await gatewayTools(upstream);
      } catch (err) {
        await upstream.close();
        throw new CliError(
          `cannot list the tools of ${label}: ${err instanceof McpLiteError ? err.message : String(err)}`,
          1,
        );
      }
      const server = createServer({
        name: 'mcplite-proxy',
        tools: [],
        answerBudgetMs: o.answerBudget,
        logger,
        ...(o.token && o.token.length > 0 ? { authenticate: bearerAuth(o.token) } : {}),
      });
      // An upstream tool mcplite cannot serve (a name outside [A-Za-z0-9_.-], a duplicate, a bad schema) is left
      // out with one line saying why; the others are served.
      const served: string[] = [];
      for (const tool of tools) {
        try {
          server.catalog.add(tool);
          served.push(tool.name);
        } catch (err) {
          logger.warn(
            { tool: tool.name, reason: err instanceof Error ? err.message : String(err) },
            'upstream tool refused',
          );
        }
      }
      const running = await serve(server, {
        port: o.port,
        host: o.host,
        basePath: normaliseBase(o.base),
        grpcPort: o.grpcPort,
        // Not ready while the upstream is down: the balancer sends the calls elsewhere.
        readiness: () => upstream.readiness(),
      });
      logger.info(
        {
          upstream: label,
          upstreamBinding: upstream.client.binding,
          url: `${running.url}${normaliseBase(o.base)}`,
          mcp: `${running.url}/mcp`,
          grpc: running.grpc ? `${o.host}:${running.grpc.port}` : undefined,
          webtools: server.webtools.names().map((name) => `${running.url}/webtools/${name}/`),
          tools: served,
        },
        'proxy listening',
      );
      process.off('SIGINT', abandon);
      process.off('SIGTERM', abandon);
      stopOnSignals(
        logger,
        GRACE_MS,
        async () => {
          await running.close(GRACE_MS);
          await upstream.close();
        },
        {
          stopping: () => ({ inFlight: server.inFlight }),
          stopped: () => ({ aborted: server.inFlight }),
        },
      );
    });
}

/** How long in-flight calls may finish when the proxy is stopped. */
const GRACE_MS = 5_000;

/** One log line per change of the upstream's state. */
function logUpstream(logger: ReturnType<typeof createLogger>, status: UpstreamStatus): void {
  if (status.state === 'up') logger.info({ upstream: status.upstream }, 'upstream reconnected');
  else if (status.state === 'reconnecting')
    logger.warn(
      {
        upstream: status.upstream,
        attempts: status.attempts,
        error: status.lastError,
        retryInMs: status.nextAttemptAt !== undefined ? status.nextAttemptAt - Date.now() : undefined,
      },
      status.attempts === 0 ? 'upstream down, reconnecting' : 'upstream still down',
    );
}
