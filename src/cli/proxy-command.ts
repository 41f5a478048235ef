import { type Command, Option } from 'commander';
import { connect } from '../client/client.js';
import { gatewayTools } from '../client/gateway.js';
import type { Binding } from '../client/types.js';
import { bearerAuth } from '../core/auth.js';
import { McpLiteError } from '../core/errors.js';
import { createServer } from '../create-server.js';
import { serve } from '../serve.js';
import { CliError } from './errors.js';
import { createLogger, LOG_LEVELS, type LogLevel } from './logger.js';
import { integer, normaliseBase, portOrOff } from './parse.js';
import { exitOnSignals } from './shutdown.js';

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
      const logger = createLogger(o.logLevel);
      let client: Awaited<ReturnType<typeof connect>>;
      try {
        client = await connect(target, {
          ...(o.binding ? { binding: o.binding } : {}),
          ...(o.upstreamToken ? { token: o.upstreamToken } : {}),
          stderr: 'inherit',
        });
      } catch (err) {
        const e = err as McpLiteError;
        const cause = e.data?.reason === 'unreachable' ? e.data.cause : undefined;
        throw new CliError(`cannot reach ${target}: ${typeof cause === 'string' ? cause : e.message}`, 1);
      }
      let tools: Awaited<ReturnType<typeof gatewayTools>>;
      try {
        tools = await gatewayTools(client);
      } catch (err) {
        await client.close().catch(() => {});
        throw new CliError(
          `cannot list the tools of ${target}: ${err instanceof McpLiteError ? err.message : String(err)}`,
          1,
        );
      }
      const server = createServer({
        name: 'mcplite-proxy',
        tools,
        answerBudgetMs: o.answerBudget,
        logger,
        ...(o.token && o.token.length > 0 ? { authenticate: bearerAuth(o.token) } : {}),
      });
      const running = await serve(server, {
        port: o.port,
        host: o.host,
        basePath: normaliseBase(o.base),
        grpcPort: o.grpcPort,
      });
      logger.info(
        {
          upstream: target,
          upstreamBinding: client.binding,
          url: `${running.url}${normaliseBase(o.base)}`,
          mcp: `${running.url}/mcp`,
          grpc: running.grpc ? `${o.host}:${running.grpc.port}` : undefined,
          webtools: server.webtools.names().map((name) => `${running.url}/webtools/${name}/`),
          tools: tools.map((t) => t.name),
        },
        'proxy listening',
      );
      exitOnSignals(running, server, logger, 5_000);
    });
}
