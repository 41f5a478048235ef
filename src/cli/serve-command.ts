import { isLoopbackHost } from '../bindings/common/host-guard.js';
import { bearerAuth } from '../core/auth.js';
import type { ToolServer } from '../core/server.js';
import { createServer } from '../create-server.js';
import { loadOptional } from '../optional-peers.js';
import type { ListenError, RunningServer } from '../serve.js';
import { MemoryPromiseStore } from '../stores/memory.js';
import { addAllowedHostsFlag, beyondLoopbackWarning, bindGuard } from './bind-guard.js';
import { clusterRole } from './cluster.js';
import { type Command, Option } from './commander.js';
import { CliError } from './errors.js';
import { loadServedModule, moduleSpec } from './load-module.js';
import { createLogger, LOG_LEVELS, type LogLevel } from './logger.js';
import { protectionOf, refuseLostOptions } from './module-protection.js';
import { addOAuthFlags, type OAuthFlags, oauthFromFlags } from './oauth-flags.js';
import { flushOnClose, otelWanted, startOtel } from './otel.js';
import { collectTokens, integer, normaliseBase, portOrOff, repeatable } from './parse.js';
import { addQueueTuning, redisStateFor } from './redis-state.js';
import {
  type BindingFlags,
  chosenBindings,
  grpcFlag,
  offBindings,
  routeGrpcJsLogs,
} from './serve-bindings.js';
import { exitOnSignals } from './shutdown.js';

/** The flags of `mcplite serve`, as commander parses them. */
export interface ServeFlags extends BindingFlags, OAuthFlags {
  port: number;
  host: string;
  base: string;
  logLevel: LogLevel;
  demo?: boolean;
  answerBudget?: number;
  mcpInlineWait?: number;
  maxBody?: number;
  heartbeat?: number;
  grace: number;
  token?: string[];
  grpcHost?: string;
  maxConnections?: number;
  stdio?: boolean;
  mcpLite?: boolean;
  rateLimit?: number;
  inspector?: boolean;
  inspectorHost?: string[];
  /** `--allowed-hosts`: Host names let through the DNS-rebinding guard besides loopback (bind-guard.ts). */
  allowedHosts?: string[];
  /** `--redis <url>` and the flags that go with it (redis-state.ts). */
  redis?: string;
  redisPrefix?: string;
  worker?: boolean;
  localFirst?: boolean;
  concurrency?: number;
  maxPromisesPerCaller?: number;
  promiseTtl?: number;
  stalledInterval?: number;
  lockDuration?: number;
  maxConcurrentWork?: number;
  /** `--cluster <n>`: n worker processes sharing the ports (cluster.ts); needs `--redis`. */
  cluster?: number;
  /** `--metrics`: serve Prometheus metrics at /metrics. */
  metrics?: boolean;
  /** `--otel`: the OpenTelemetry Node SDK with OTLP export (otel.ts); also on with OTEL_EXPORTER_OTLP_ENDPOINT. */
  otel?: boolean;
}

/** Adds `serve [module]` to the program. */
export function registerServe(program: Command): void {
  const command = program
    .command('serve')
    .description(
      'Serve the tools of a module over MCP (Streamable HTTP at /mcp) and MCP-lite HTTP on one port, or over MCP ' +
        'on stdio (--stdio); WebSocket, legacy SSE, Webtools and gRPC are one flag each away (--all: every one)',
    )
    .argument('[module]', 'a .js/.mjs module (or .ts, with tsx installed) that exports tools')
    .option('--demo', 'serve the bundled demo tools (examples/demo)')
    .option('--stdio', 'speak MCP over stdin/stdout instead of listening (logs go to stderr)')
    .option('--mcp-lite', 'with --stdio: speak MCP-lite JSON-RPC (one message per line) instead of MCP')
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
    .addOption(
      new Option(
        '--mcp-inline-wait <ms>',
        "full MCP and MCP over gRPC: how long a call waits for a promise's work before answering with the promise (0: never)",
      ).argParser(integer(0)),
    )
    .addOption(
      new Option(
        '--max-body <bytes>',
        'largest accepted request (HTTP and /mcp bodies, gRPC request messages); default 4 MiB',
      ).argParser(integer(1)),
    )
    .addOption(
      new Option(
        '--max-connections <n>',
        'most connections served at once per listener; more get 503 (HTTP) or are closed (0: no limit)',
      ).argParser(integer(0)),
    )
    .addOption(new Option('--heartbeat <ms>', 'SSE heartbeat interval when idle').argParser(integer(1)))
    .addOption(
      new Option('--grace <ms>', 'on SIGTERM/SIGINT, how long in-flight calls may finish')
        .argParser(integer(0))
        .default(10_000),
    )
    .addOption(
      new Option(
        '--grpc [port]',
        'also serve MCP-lite gRPC, on a port of its own (default 50051; 0 picks a free one)',
      ).argParser(grpcFlag),
    )
    .addOption(
      new Option(
        '--grpc-port <n|off>',
        'the gRPC port: a number turns gRPC on, as --grpc <n> does',
      ).argParser(portOrOff),
    )
    .option('--ws', 'also serve MCP (at /mcp) and MCP-lite (at <base>ws) over WebSocket, on the same port')
    .option('--legacy-sse', "also serve MCP's legacy HTTP+SSE transport (2024-11-05: /sse, /messages)")
    .option('--webtools', 'also serve the Webtools binding at /webtools/<name>/')
    .option('--all', 'serve every binding: --ws, --legacy-sse, --webtools and --grpc')
    .addOption(
      new Option(
        '--rate-limit <n>',
        'limit each caller (token, else address) to n tool calls per second, burst n, on every binding',
      ).argParser(integer(1)),
    )
    .option('--grpc-host <addr>', 'address the gRPC listener binds (default: --host)')
    .option(
      '--redis <url>',
      'keep all state in Redis (promises, MCP sessions, rate limits) and run long work on its queue, so that any ' +
        'number of replicas serve alike; needs MCPLITE_SECRET (docs/deploy.md)',
    )
    .option('--redis-prefix <prefix>', 'prefix of every Redis key, to share one Redis (default mcplite:)')
    .option('--no-worker', 'with --redis: work no queued jobs here (a pure front; run `mcplite worker`)')
    .option(
      '--no-local-first',
      'with --redis: queue every long-running call on BullMQ, even when this process has a slot free to run it',
    )
    .addOption(
      new Option(
        '--concurrency <n>',
        'with --redis: most queued jobs this process works at once (default 16)',
      ).argParser(integer(1)),
    )
    .addOption(
      new Option('--promise-ttl <ms>', 'how long a promise can be redeemed (default 3600000)').argParser(
        integer(1000),
      ),
    )
    .addOption(
      new Option(
        '--max-promises-per-caller <n>',
        'most unexpired promises one caller (token, else address) may hold (default 1000)',
      ).argParser(integer(1)),
    )
    .addOption(
      new Option(
        '--max-concurrent-work <n>',
        'without --redis: most promised calls running at once, the rest wait (default 64)',
      ).argParser(integer(1)),
    )
    .addOption(
      new Option(
        '--token <token>',
        'require this bearer token; repeat for several (prefer env MCPLITE_TOKENS, comma separated: flags show up in ps)',
      ).argParser(repeatable),
    )
    .option('--inspector', 'also serve the web inspector at /inspector/ (loopback clients only)')
    .option('--metrics', 'serve Prometheus metrics at /metrics (no token needed: keep the port private)')
    .option(
      '--otel',
      'export OpenTelemetry traces and metrics over OTLP, configured by the OTEL_* environment (on by itself when OTEL_EXPORTER_OTLP_ENDPOINT is set)',
    )
    .addOption(
      new Option(
        '--cluster <n>',
        'run n worker processes sharing the ports (node:cluster), restarted if they die; needs --redis',
      ).argParser(integer(1, 256)),
    )
    .option(
      '--inspector-host <name...>',
      'let clients beyond loopback use the inspector, under these Host names (it can call every tool)',
    );
  addAllowedHostsFlag(addQueueTuning(addOAuthFlags(command))).action(
    async (module: string | undefined, flags: ServeFlags) => {
      await runServe(module, flags);
    },
  );
}

/** Loads the tools, starts the server, prints the listening line and exits cleanly on SIGTERM/SIGINT. */
export async function runServe(module: string | undefined, flags: ServeFlags): Promise<RunningServer> {
  const spec = moduleSpec(module, flags.demo, 'serve: give a tool module (mcplite serve ./tools.js)');
  const logger = createLogger(flags.logLevel);
  // --cluster: the primary supervises workers and never gets past this; each worker goes on to serve.
  await clusterRole(flags, logger);
  // Before the server is made (and the module loaded): the server installs its tracing only with an SDK running.
  const otel = otelWanted(flags.otel) ? await startOtel() : undefined;
  const loaded = await loadServedModule(spec);
  const tokens = collectTokens(flags.token, process.env.MCPLITE_TOKENS);
  const oauth = oauthFromFlags(flags, process.env);
  refuseLostOptions(loaded, { given: serverShapingFlags(flags), tokens: tokens.length > 0, oauth: !!oauth });
  const metrics = flags.metrics
    ? (await loadOptional('metrics', () => import('../metrics.js'))).createMetrics({
        queueStats: () => server.queueStats(),
        // Read at scrape time, when the store below exists; shared stores count every replica's promises.
        promiseStats: async () => ({ pending: (await promiseStore?.pendingCount?.()) ?? Number.NaN }),
        cluster: flags.cluster !== undefined,
      })
    : undefined;
  const state = flags.redis
    ? await redisStateFor({ ...flags, redis: flags.redis }, logger, flags.worker !== false)
    : undefined;
  const promiseStore =
    loaded.serverOptions.promiseStore === false
      ? undefined
      : (state?.promiseStore ?? loaded.serverOptions.promiseStore ?? new MemoryPromiseStore());
  let server: ToolServer;
  try {
    server =
      loaded.server ??
      createServer({
        ...loaded.serverOptions,
        tools: loaded.tools,
        logger,
        ...(tokens.length > 0 ? { authenticate: bearerAuth(tokens) } : {}),
        // With tokens too, either one lets a caller in.
        ...(oauth ? { auth: oauth } : {}),
        ...(flags.answerBudget !== undefined ? { answerBudgetMs: flags.answerBudget } : {}),
        ...(flags.mcpInlineWait !== undefined ? { mcpInlineWaitMs: flags.mcpInlineWait } : {}),
        ...(flags.rateLimit !== undefined
          ? {
              rateLimit: {
                requestsPerSecond: flags.rateLimit,
                ...(state ? { store: state.rateLimitStore } : {}),
              },
            }
          : {}),
        ...(state ? { workQueue: state.workQueue, elicitationNonceStore: state.elicitationNonceStore } : {}),
        ...(promiseStore
          ? { promiseStore: metrics ? metrics.instrumentStore(promiseStore) : promiseStore }
          : {}),
        ...(flags.maxPromisesPerCaller !== undefined
          ? { maxPromisesPerCaller: flags.maxPromisesPerCaller }
          : {}),
        ...(flags.maxConcurrentWork !== undefined ? { maxConcurrentWork: flags.maxConcurrentWork } : {}),
        ...(flags.promiseTtl !== undefined ? { promiseTtlMs: flags.promiseTtl } : {}),
        // Replicas behind one load balancer must share the key that signs elicitation states.
        ...(process.env.MCPLITE_SECRET ? { secret: process.env.MCPLITE_SECRET } : {}),
        ...(metrics ? { onCallEnd: metrics.observer } : {}),
      });
  } catch (err) {
    throw new CliError(`Invalid tools in ${loaded.path}: ${(err as Error).message}`, 2, { cause: err });
  }
  if (flags.mcpLite && !flags.stdio) throw new CliError('--mcp-lite goes with --stdio (HTTP serves both)');
  if (flags.stdio) {
    // stdio has no bearer tokens: its client is the parent process, trusted as it is. Say so rather than nothing.
    if (tokens.length > 0 || oauth)
      process.stderr.write(
        'mcplite: warning: tokens have no effect with --stdio, nor has OAuth (its client is the parent process)\n',
      );
    return runStdio(server, flags.mcpLite === true);
  }
  const basePath = normaliseBase(flags.base);
  const bindings = chosenBindings(flags);
  if (bindings.grpcPort !== false) await routeGrpcJsLogs(logger);
  // The inspector's remote names are Host names the guard in front of it must let through too.
  // So is the host of the OAuth resource: it is the URL clients were told to use.
  const resource = oauth?.protectedResource?.resource;
  const guard = bindGuard(flags.host, [
    ...(flags.allowedHosts ?? []),
    ...(flags.inspectorHost ?? []),
    ...(resource ? [new URL(resource).host] : []),
  ]);
  // node:http and every binding's HTTP handler load here, only for a server that listens: a stdio one never
  // uses them, and they were a tenth of its start.
  const { serve, ListenError: ListenFailed } = await import('../serve.js');
  let running: RunningServer;
  try {
    running = await serve(server, {
      port: flags.port,
      host: flags.host,
      ...guard,
      basePath,
      ...(flags.maxBody !== undefined ? { maxBodyBytes: flags.maxBody } : {}),
      ...(flags.heartbeat !== undefined ? { heartbeatMs: flags.heartbeat } : {}),
      ...bindings,
      ...(flags.grpcHost !== undefined ? { grpcHost: flags.grpcHost } : {}),
      ...(flags.maxConnections !== undefined ? { maxConnections: flags.maxConnections } : {}),
      ...(flags.inspector || flags.inspectorHost ? { inspector: inspectorOptions(flags) } : {}),
      ...(state ? { readiness: state.readiness, sessionStore: state.sessionStore } : {}),
      ...(metrics ? { metrics: { metrics } } : {}),
    });
  } catch (err) {
    await server.close();
    throw listenFailure(err instanceof ListenFailed ? err : undefined, err, flags);
  }
  if (otel) flushOnClose(running, otel);
  const url = `${running.url}${basePath}`;
  // The one line on stdout: scripts and tests wait for it and read the (possibly picked) port from it.
  process.stdout.write(`mcplite listening on ${url}\n`);
  process.stdout.write(`mcplite MCP (Streamable HTTP) on ${running.url}/mcp\n`);
  if (running.ws)
    process.stdout.write(
      `mcplite MCP-lite WebSocket on ${running.url.replace(/^http/, 'ws')}${basePath}ws\n`,
    );
  if (running.mcpWs)
    process.stdout.write(`mcplite MCP (WebSocket) on ${running.url.replace(/^http/, 'ws')}/mcp\n`);
  if (running.legacySse) process.stdout.write(`mcplite MCP (HTTP+SSE, 2024-11-05) on ${running.url}/sse\n`);
  if (bindings.webtoolsPath !== false) {
    for (const name of server.webtools.names()) {
      process.stdout.write(`mcplite Webtools ${name} on ${running.url}/webtools/${name}/\n`);
    }
  }
  if (running.grpc) process.stdout.write(`mcplite gRPC (mcplite.MCPLite) on ${running.grpc.address}\n`);
  // The URL carries the inspector's token: stdout is the operator's alone (it never goes to the log).
  if (running.inspectorUrl) process.stdout.write(`mcplite inspector on ${running.inspectorUrl}\n`);
  logger.info(
    {
      url,
      server: server.name,
      version: server.version,
      tools: server.catalog.names(),
      // What protects it, said where the operator looks: the module's own auth and middleware count too.
      ...protectionOf(server, {
        tokens: tokens.length > 0,
        oauth: oauth?.protectedResource?.resource,
        moduleAuth: Boolean(
          loaded.server?.authenticate ?? loaded.serverOptions.authenticate ?? loaded.serverOptions.auth,
        ),
      }),
      oauth: oauth?.protectedResource?.resource,
      grpc: running.grpc?.address,
      // What is not served, each one flag away: said once, where the operator looks.
      off: offBindings(running, bindings),
    },
    'listening',
  );
  const warning = beyondLoopbackWarning(flags.host, guard);
  if (warning) process.stderr.write(warning);
  if (!server.authenticate && !isLoopbackHost(flags.host)) {
    logger.warn({ host: flags.host }, 'listening beyond loopback without authentication: set MCPLITE_TOKENS');
  }
  exitOnSignals(running, server, logger, flags.grace);
  return running;
}

/** MCP (or MCP-lite) over stdio until the client closes stdin; resolves never (the process exits). */
async function runStdio(server: ToolServer, mcpLite: boolean): Promise<never> {
  if (mcpLite) {
    const { serveMcpLiteStdio } = await import('../bindings/mcp-lite/stdio/index.js');
    await serveMcpLiteStdio(server).closed;
  } else {
    const { serveMcpStdio } = await import('../bindings/mcp/stdio/index.js');
    await serveMcpStdio(server).closed;
  }
  await server.close();
  process.exit(0);
}

/** The flags given that shape the server rather than its listeners (a module's own server takes none). */
function serverShapingFlags(flags: ServeFlags): string[] {
  const shaping: [keyof ServeFlags, string][] = [
    ['token', '--token'],
    ['answerBudget', '--answer-budget'],
    ['mcpInlineWait', '--mcp-inline-wait'],
    ['rateLimit', '--rate-limit'],
    ['redis', '--redis'],
    ['metrics', '--metrics'],
    ['promiseTtl', '--promise-ttl'],
    ['maxPromisesPerCaller', '--max-promises-per-caller'],
    ['maxConcurrentWork', '--max-concurrent-work'],
    ['oauthIssuer', '--oauth-issuer'],
    ['oauthIntrospection', '--oauth-introspection'],
    ['oauthDpop', '--oauth-dpop'],
    ['oauthDpopNonce', '--oauth-dpop-nonce'],
  ];
  const given = shaping.filter(([key]) => flags[key] !== undefined && flags[key] !== false).map(([, f]) => f);
  if (process.env.MCPLITE_TOKENS?.trim()) given.push('MCPLITE_TOKENS');
  return given;
}

/**
 * Says which listener failed, where, and the flag that picks another port: `listen` is `thrown` when it is the
 * `ListenError` that names the listener.
 */
function listenFailure(listen: ListenError | undefined, thrown: unknown, flags: ServeFlags): CliError {
  if (!listen) {
    return new CliError(`Cannot listen on ${flags.host}:${flags.port}: ${(thrown as Error).message}`, 1, {
      cause: thrown,
    });
  }
  const flag =
    listen.binding === 'grpc' ? (flags.grpcPort !== undefined ? '--grpc-port' : '--grpc') : '--port';
  const advice =
    listen.binding === 'grpc'
      ? `pick another gRPC port with ${flag} <n> (0 picks a free one), or ${flag === '--grpc' ? 'serve without --grpc' : `turn gRPC off with ${flag} off`}`
      : `pick another port with ${flag} <n> (0 picks a free one)`;
  const who = listen.inUse ? ' (another server, or another mcplite serve, has it)' : '';
  return new CliError(`${listen.message}${who}: ${advice}`, 1, { cause: listen });
}

/** `--inspector-host` names the Host names remote browsers use, which is what lets them in at all. */
function inspectorOptions(flags: ServeFlags): { allowRemote?: boolean; allowedHosts?: string[] } {
  if (!flags.inspectorHost) return {};
  return {
    allowRemote: true,
    allowedHosts: ['localhost', '127.0.0.1', '[::1]', ...flags.inspectorHost.map((h) => h.toLowerCase())],
  };
}
