import { type Command, Option } from 'commander';
import { bearerAuth } from '../core/auth.js';
import type { ToolServer } from '../core/server.js';
import { createServer } from '../create-server.js';
import { type RunningServer, serve } from '../serve.js';
import { CliError } from './errors.js';
import { loadToolModule } from './load-module.js';
import { demoModulePath } from './locate.js';
import { createLogger, LOG_LEVELS, type LogLevel } from './logger.js';
import { collectTokens, integer, normaliseBase, portOrOff } from './parse.js';
import { exitOnSignals } from './shutdown.js';

/** The flags of `mcplite serve`, as commander parses them. */
export interface ServeFlags {
  port: number;
  host: string;
  base: string;
  logLevel: LogLevel;
  demo?: boolean;
  answerBudget?: number;
  maxBody?: number;
  heartbeat?: number;
  grace: number;
  token?: string[];
  grpcPort: number | false;
  grpcHost?: string;
  stdio?: boolean;
}

/** Adds `serve [module]` to the program. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Serve the tools of a module over MCP-lite HTTP')
    .argument('[module]', 'a .js/.mjs module (or .ts, with tsx installed) that exports tools')
    .option('--demo', 'serve the bundled demo tools (examples/demo)')
    .option('--stdio', 'speak MCP over stdin/stdout instead of listening (logs go to stderr)')
    .addOption(
      new Option('--port <n>', 'port to listen on (0 picks a free one)')
        .argParser(integer(0, 65535))
        .default(3000),
    )
    .option('--host <addr>', 'address to bind', '127.0.0.1')
    .option('--base <path>', 'base path of the endpoints', '/mcp-lite/v1/')
    .addOption(
      new Option('--log-level <level>', 'log level (JSON logs go to stderr)')
        .choices(LOG_LEVELS)
        .default('info'),
    )
    .addOption(
      new Option(
        '--answer-budget <ms>',
        'calls running longer are answered with a promise (0: never)',
      ).argParser(integer(0)),
    )
    .addOption(new Option('--max-body <bytes>', 'largest accepted request body').argParser(integer(1)))
    .addOption(new Option('--heartbeat <ms>', 'SSE heartbeat interval when idle').argParser(integer(1)))
    .addOption(
      new Option('--grace <ms>', 'on SIGTERM/SIGINT, how long in-flight calls may finish')
        .argParser(integer(0))
        .default(10_000),
    )
    .addOption(
      new Option(
        '--grpc-port <n|off>',
        'also serve the MCP-lite gRPC binding on this port (0 picks one; off: no gRPC)',
      )
        .argParser(portOrOff)
        .default(50_051),
    )
    .option('--grpc-host <addr>', 'address the gRPC listener binds (default: --host)')
    .option(
      '--token <token...>',
      'require one of these bearer tokens (prefer env MCPLITE_TOKENS, comma separated: flags show up in ps)',
    )
    .action(async (module: string | undefined, flags: ServeFlags) => {
      await runServe(module, flags);
    });
}

/** Loads the tools, starts the server, prints the listening line and exits cleanly on SIGTERM/SIGINT. */
export async function runServe(module: string | undefined, flags: ServeFlags): Promise<RunningServer> {
  if (flags.demo && module) throw new CliError('Give either a module or --demo, not both');
  const spec = flags.demo ? demoModulePath() : module;
  if (!spec) throw new CliError('Nothing to serve: give a tool module (mcplite serve ./tools.js) or --demo');
  const logger = createLogger(flags.logLevel);
  const loaded = await loadToolModule(spec);
  const tokens = collectTokens(flags.token, process.env.MCPLITE_TOKENS);
  let server: ToolServer;
  try {
    server = createServer({
      ...loaded.serverOptions,
      tools: loaded.tools,
      logger,
      ...(tokens.length > 0 ? { authenticate: bearerAuth(tokens) } : {}),
      ...(flags.answerBudget !== undefined ? { answerBudgetMs: flags.answerBudget } : {}),
      // Replicas behind one load balancer must share the key that signs elicitation states.
      ...(process.env.MCPLITE_SECRET ? { secret: process.env.MCPLITE_SECRET } : {}),
    });
  } catch (err) {
    throw new CliError(`Invalid tools in ${loaded.path}: ${(err as Error).message}`, 2, { cause: err });
  }
  if (flags.stdio) return runStdio(server);
  const basePath = normaliseBase(flags.base);
  let running: RunningServer;
  try {
    running = await serve(server, {
      port: flags.port,
      host: flags.host,
      basePath,
      ...(flags.maxBody !== undefined ? { maxBodyBytes: flags.maxBody } : {}),
      ...(flags.heartbeat !== undefined ? { heartbeatMs: flags.heartbeat } : {}),
      grpcPort: flags.grpcPort,
      ...(flags.grpcHost !== undefined ? { grpcHost: flags.grpcHost } : {}),
    });
  } catch (err) {
    await server.close();
    throw new CliError(`Cannot listen on ${flags.host}:${flags.port}: ${(err as Error).message}`, 1, {
      cause: err,
    });
  }
  const url = `${running.url}${basePath}`;
  // The one line on stdout: scripts and tests wait for it and read the (possibly picked) port from it.
  process.stdout.write(`mcplite listening on ${url}\n`);
  process.stdout.write(`mcplite MCP (Streamable HTTP) on ${running.url}/mcp\n`);
  if (running.grpc) process.stdout.write(`mcplite gRPC (mcplite.MCPLite) on ${running.grpc.address}\n`);
  logger.info(
    {
      url,
      server: server.name,
      version: server.version,
      tools: server.catalog.names(),
      auth: tokens.length > 0,
      grpc: running.grpc?.address,
    },
    'listening',
  );
  if (tokens.length === 0 && !isLoopback(flags.host)) {
    logger.warn({ host: flags.host }, 'listening beyond loopback without authentication: set MCPLITE_TOKENS');
  }
  exitOnSignals(running, server, logger, flags.grace);
  return running;
}

/** MCP over stdio until the client closes stdin; resolves never (the process exits). */
async function runStdio(server: ToolServer): Promise<never> {
  const { serveStdio } = await import('../bindings/mcp/stdio.js');
  const stdio = serveStdio(server);
  await stdio.closed;
  await server.close();
  process.exit(0);
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}
