import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { bindingOf } from '../client/detect.js';
import type { OAuthOptions } from '../client/oauth.js';
import type { Binding } from '../client/types.js';
import { bearerAuth } from '../core/auth.js';
import { McpLiteError } from '../core/errors.js';
import { createServer } from '../create-server.js';
import { gatewayCatalog } from '../gateway/catalog.js';
import { type EntryOAuth, parseGatewayConfig } from '../gateway/config.js';
import { Gateway } from '../gateway/gateway.js';
import { entrySource } from '../gateway/open-entry.js';
import { openUpstream, type UpstreamSource } from '../gateway/proxy-tools.js';
import { type UpstreamStatus, upstreamLabel } from '../gateway/upstream.js';
import { serve } from '../serve.js';
import { addAllowedHostsFlag, beyondLoopbackWarning, bindGuard } from './bind-guard.js';
import { type Command, Option } from './commander.js';
import { CliError } from './errors.js';
import { createLogger, LOG_LEVELS, type LogLevel } from './logger.js';
import { cliOAuth } from './oauth-options.js';
import { flushOnClose, otelWanted, startOtel } from './otel.js';
import { integer, normaliseBase, portOrOff } from './parse.js';
import { type RedisState, redisStateFor } from './redis-state.js';
import { stopOnSignals } from './shutdown.js';
import { moduleTargetError } from './target.js';
import { fileOAuthStore } from './token-file.js';

/** How long opening the upstream may take, at start and on each attempt to reopen it. */
const OPEN_TIMEOUT_MS = 30_000;
/** The largest config file read. */
const MAX_CONFIG_BYTES = 1024 * 1024;

interface ProxyOptions {
  config?: string;
  port: number;
  host: string;
  base: string;
  grpcPort: number | false;
  token?: string[];
  answerBudget: number;
  toolSearch?: boolean;
  binding?: Binding;
  upstreamToken?: string;
  callTimeout?: number;
  maxInFlight?: number;
  maxTools?: number;
  maxResponseBytes?: number;
  redis?: string;
  redisPrefix?: string;
  logLevel: LogLevel;
  allowedHosts?: string[];
}

type Logger = ReturnType<typeof createLogger>;

/**
 * `mcplite proxy <target>` or `mcplite proxy --config <file>`: a gateway that serves existing servers (MCP
 * servers over stdio or HTTP, any binding the client speaks, OpenAPI services) over every mcplite binding, each
 * server's tools under its name with `--config`. Calls that outlive the answer budget become promises (on Redis,
 * redeemable on any replica), so a stdio-only server gains statelessness, promises and gRPC without a line changed.
 */
export function registerProxy(program: Command): void {
  const command = program
    .command('proxy')
    .description(
      'serve existing MCP servers, mcplite targets and OpenAPI services over MCP-lite HTTP, gRPC, MCP and Webtools',
    )
    .argument('[target]', 'the one upstream: an MCP server command line, an MCP URL, or any mcplite target')
    .option('--config <file>', 'the upstreams, as {"mcpServers": {"<name>": {...}}} (docs/gateway.md)')
    .option('--port <n>', 'HTTP port (0 picks a free one)', integer(0, 65535), 3000)
    .option('--host <addr>', 'address to bind', '127.0.0.1')
    .option('--base <path>', 'base path of the MCP-lite endpoints', '/mcp-lite/v1/')
    .option('--grpc-port <n>', 'gRPC port, or "off"', portOrOff, 50051)
    .option('--token <token...>', 'require this bearer token from clients (repeatable)')
    .option('--answer-budget <ms>', 'calls running longer than this become promises', integer(1), 10_000)
    .option(
      '--tool-search',
      'list a search tool and a call tool instead of every upstream tool (docs/discovery.md)',
    )
    .addOption(
      new Option('--binding <binding>', 'how to reach the <target> upstream (default: detect)').choices([
        'mcp-lite-http',
        'grpc',
        'mcp-grpc',
        'mcp',
        'stdio',
        'webtools',
      ]),
    )
    .option('--upstream-token <token>', 'bearer token for the <target> upstream')
    .option('--call-timeout <ms>', 'longest upstream call (default 300000)', integer(1))
    .option('--max-in-flight <n>', 'most calls running at once per upstream (default 64)', integer(1))
    .option('--max-tools <n>', 'most tools taken from one upstream (default 1000)', integer(1))
    .option('--max-response-bytes <n>', 'largest upstream response (default 16777216)', integer(1))
    .option(
      '--redis <url>',
      'keep promises, MCP sessions and used elicitations in Redis, so that replicas behind one balancer share them',
    )
    .option('--redis-prefix <prefix>', 'prefix of every Redis key, to share one Redis (default mcplite:)')
    .addOption(new Option('--log-level <level>', 'log level').choices(LOG_LEVELS).default('info'));
  addAllowedHostsFlag(command).action(async (target: string | undefined, o: ProxyOptions) => {
    if ((target === undefined) === (o.config === undefined))
      throw new CliError('give one upstream <target> or --config <file> (not both)', 2);
    if (o.config !== undefined && (o.binding !== undefined || o.upstreamToken !== undefined))
      throw new CliError(
        '--binding and --upstream-token go with a <target>; in a --config file, give each server its "headers"',
        2,
      );
    if (target !== undefined) {
      const notATarget = moduleTargetError(target);
      if (notATarget) throw notATarget;
    }
    const logger = createLogger(o.logLevel);
    // Until the proxy serves, a signal exits at once: through `exit`, so an upstream being started is ended too.
    const abandon = () => process.exit(1);
    process.once('SIGINT', abandon);
    process.once('SIGTERM', abandon);
    const state = o.redis
      ? await redisStateFor(
          { redis: o.redis, ...(o.redisPrefix ? { redisPrefix: o.redisPrefix } : {}) },
          logger,
          true,
        )
      : undefined;
    // OTEL_EXPORTER_OTLP_ENDPOINT: one trace runs model client -> proxy -> upstream (docs/observability.md).
    const otel = otelWanted(undefined) ? await startOtel() : undefined;
    const server = createServer({
      name: 'mcplite-proxy',
      tools: [],
      answerBudgetMs: o.answerBudget,
      ...(o.toolSearch ? { toolSearch: true } : {}),
      logger,
      ...(o.token && o.token.length > 0 ? { authenticate: bearerAuth(o.token) } : {}),
      ...(state
        ? {
            promiseStore: state.promiseStore,
            workQueue: state.workQueue,
            elicitationNonceStore: state.elicitationNonceStore,
          }
        : {}),
      // Replicas behind one load balancer must share the key that signs elicitation states.
      ...(process.env.MCPLITE_SECRET ? { secret: process.env.MCPLITE_SECRET } : {}),
    });
    const gateway = new Gateway(server, { logger });
    // Until the proxy serves, a broken upstream is the start's failure, not a reconnection to announce.
    let started = false;
    let readiness: () => Promise<void>;
    let listening: Record<string, unknown>;
    try {
      if (target !== undefined) {
        const upstream = await openSingle(target, o, logger, () => started);
        await gateway.add('upstream', upstream, true).catch(async (err: unknown) => {
          // The proxy exits: the cause, not the reconnection it will never make.
          const cause =
            upstream.upstream.status().lastError ?? (err instanceof McpLiteError ? err.message : String(err));
          throw new CliError(`cannot list the tools of ${upstream.label}: ${cause}`, 1);
        });
        // Not ready while the one upstream is down: the balancer sends the calls elsewhere.
        readiness = () => upstream.upstream.readiness();
        listening = {
          upstream: upstream.label,
          upstreamBinding: upstream.upstream.client.binding,
          tools: gateway.toolsOf('upstream'),
        };
      } else {
        const names = await addConfigured(gateway, o, logger);
        readiness = () => gateway.readiness();
        listening = { servers: Object.fromEntries(names.map((n) => [n, gateway.toolsOf(n)])) };
      }
    } catch (err) {
      await gateway.close();
      await closeState(server, state);
      throw err;
    }
    const guard = bindGuard(o.host, o.allowedHosts);
    const running = await serve(server, {
      port: o.port,
      host: o.host,
      ...guard,
      basePath: normaliseBase(o.base),
      grpcPort: o.grpcPort,
      readiness: state ? () => Promise.all([readiness(), state.readiness()]).then(() => {}) : readiness,
      ...(state ? { sessionStore: state.sessionStore } : {}),
      // The AI Catalog lists a card for each server the proxy exposes.
      aiCatalog: { sources: [gatewayCatalog(gateway, server)] },
    });
    started = true;
    if (otel) flushOnClose(running, otel);
    logger.info(
      {
        ...listening,
        url: `${running.url}${normaliseBase(o.base)}`,
        mcp: `${running.url}/mcp`,
        grpc: running.grpc ? `${o.host}:${running.grpc.port}` : undefined,
        webtools: server.webtools.names().map((name) => `${running.url}/webtools/${name}/`),
        redis: state ? true : undefined,
      },
      'proxy listening',
    );
    const warning = beyondLoopbackWarning(o.host, guard);
    if (warning) process.stderr.write(warning);
    process.off('SIGINT', abandon);
    process.off('SIGTERM', abandon);
    stopOnSignals(
      logger,
      GRACE_MS,
      async () => {
        await running.close(GRACE_MS);
        await gateway.close();
        await closeState(server, state);
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

/** The bounds the flags set, as the options of a proxied upstream. */
function boundsOf(o: ProxyOptions) {
  return {
    ...(o.callTimeout !== undefined ? { callTimeoutMs: o.callTimeout } : {}),
    ...(o.maxInFlight !== undefined ? { maxInFlight: o.maxInFlight } : {}),
    ...(o.maxTools !== undefined ? { maxTools: o.maxTools } : {}),
  };
}

/** `proxy <target>`: the one upstream, which must answer for the proxy to start; its tools keep their names. */
async function openSingle(
  target: string,
  o: ProxyOptions,
  logger: Logger,
  started: () => boolean,
): Promise<UpstreamSource> {
  const label = upstreamLabel(target);
  try {
    return await openUpstream(target, {
      label,
      openTimeoutMs: OPEN_TIMEOUT_MS,
      connect: {
        ...(o.binding ? { binding: o.binding } : {}),
        // Without a token, an upstream protected by OAuth uses the tokens `mcplite login` kept (refreshed when
        // refused), else prints a sign-in URL: printed, not opened, as a reconnecting upstream may ask again.
        ...(o.upstreamToken
          ? { token: o.upstreamToken }
          : bindingOf(target) === 'stdio'
            ? {}
            : { oauth: cliOAuth({ browser: false }).oauth }),
        ...(o.maxResponseBytes !== undefined ? { maxResponseBytes: o.maxResponseBytes } : {}),
        stderr: 'inherit',
        // Bounds connecting (the client then ends a stdio child that never answers); calls set their own.
        timeout: OPEN_TIMEOUT_MS,
      },
      ...boundsOf(o),
      onChange: (status) => {
        if (started()) logUpstream(logger, status);
      },
      onTruncated: (listed, kept) =>
        logger.warn({ upstream: label, listed, kept }, 'upstream tools truncated'),
    });
  } catch (err) {
    const e = err as McpLiteError;
    const cause = e.data?.reason === 'unreachable' ? e.data.cause : undefined;
    throw new CliError(`cannot reach ${label}: ${typeof cause === 'string' ? cause : e.message}`, 1);
  }
}

/**
 * `proxy --config <file>`: every server of the file, each under its name. A server that is down at start does
 * not stop the gateway: it is tried again with backoff, its tools served once it answers.
 */
async function addConfigured(gateway: Gateway, o: ProxyOptions, logger: Logger): Promise<string[]> {
  const path = resolve(o.config!);
  let text: string;
  try {
    const bytes = await readFile(path);
    if (bytes.byteLength > MAX_CONFIG_BYTES) throw new Error(`larger than ${MAX_CONFIG_BYTES} bytes`);
    text = bytes.toString('utf8');
  } catch (err) {
    throw new CliError(`cannot read ${o.config}: ${(err as Error).message}`, 2);
  }
  let entries: ReturnType<typeof parseGatewayConfig>;
  try {
    entries = parseGatewayConfig(text);
  } catch (err) {
    throw new CliError(`${o.config}: ${(err as Error).message}`, 2);
  }
  const defaults = {
    baseDir: dirname(path),
    ...(o.callTimeout !== undefined ? { timeout: o.callTimeout } : {}),
    ...(o.maxInFlight !== undefined ? { maxInFlight: o.maxInFlight } : {}),
    ...(o.maxTools !== undefined ? { maxTools: o.maxTools } : {}),
    ...(o.maxResponseBytes !== undefined ? { maxResponseBytes: o.maxResponseBytes } : {}),
    onChange: (status: UpstreamStatus) => logUpstream(logger, status),
    onUnknownNames: (server: string, names: string[]) =>
      logger.warn({ server, names }, 'config names tools the server does not have'),
    onTruncated: (server: string, listed: number, kept: number) =>
      logger.warn({ server, listed, kept }, 'upstream tools truncated'),
    // The tokens `mcplite login <url>` keeps (refreshed when refused); no browser from a server process.
    oauth: (settings: EntryOAuth): OAuthOptions => ({
      store: fileOAuthStore(),
      clientName: 'mcplite gateway',
      ...settings,
    }),
    onSignInNeeded: (server: string, upstream: string) =>
      logger.warn(
        { server, upstream, signIn: `mcplite login ${upstream}` },
        'upstream needs a sign-in: run the signIn command; it is retried meanwhile',
      ),
  };
  await Promise.all(entries.map((entry) => gateway.add(entry.name, entrySource(entry, defaults))));
  return entries.map((e) => e.name);
}

async function closeState(
  server: ReturnType<typeof createServer>,
  state: RedisState | undefined,
): Promise<void> {
  await server.close().catch(() => {});
  await state?.close().catch(() => {});
}

/** One log line per change of an upstream's state. */
function logUpstream(logger: Logger, status: UpstreamStatus): void {
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
