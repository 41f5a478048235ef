import type { Authenticate } from './auth.js';
import type { ServerCardOptions } from './discovery/server-card.js';
import type { ElicitationNonceStore } from './elicitation-nonces.js';
import type { LoggerLike } from './logger.js';
import type { CallObserver } from './middleware/observe-calls.js';
import type { Middleware } from './operation.js';
import type { PromiseStore } from './promises/store.js';
import type { PromptDefinition } from './prompts.js';
import type { RateLimitOptions } from './rate-limit.js';
import type { ResourceDefinition, ResourceTemplateDefinition } from './resources.js';
import type { SkillDefinition } from './skills/skills.js';
import type { TelemetryOptions } from './telemetry/telemetry-options.js';
import type { ToolDefinition } from './tool.js';
import type { WebtoolDefinition } from './webtools.js';
import type { WorkQueue } from './work-queue.js';

/** Promises, long-running work and the answer budget (`ToolServerOptions.promises`). */
export interface PromiseOptions {
  /**
   * Where promises live. Without a store there are no promises: no `redeem`, no long-running tools. With one,
   * `redeem` and `cancel` are listed only when a tool can return a promise: a long-running tool, or an answer
   * budget set here.
   */
  store?: PromiseStore;
  /**
   * A call still running after this many milliseconds is answered with a promise and goes on as background
   * work (non-streaming calls only). 0 turns this off. Setting it (above 0) lists `redeem` and `cancel`. Default:
   * 10 000 on a server with long-running tools (it lists them anyway), else off: a server that never returns
   * promises keeps every call to its answer.
   */
  answerBudgetMs?: number;
  /**
   * Full MCP: how long a `tools/call` of a client that did not opt into tasks waits for the work of a promise (a
   * long-running tool's, a call past the answer budget) before answering with the promise and the instruction to
   * call `redeem`. Within it the client gets the answer in the same call, with the handler's progress (given a
   * progress token) and SSE keep-alives while it waits, as ordinary MCP clients expect. 0 answers with the promise
   * at once. Default 50 000: below the official SDKs' 60 s request timeout, after which a client gives up. MCP
   * over gRPC's `CallTool` waits the same, ending before the call's deadline (docs/grpc.md).
   */
  mcpInlineWaitMs?: number;
  /** How long a promise can be redeemed. Default one hour. */
  ttlMs?: number;
  /**
   * Most unexpired promises one caller (`callerKey`: the principal, else the remote address) may hold; past it
   * that caller's next promise is refused with `resource_exhausted`. Default 1 000.
   */
  maxPerCaller?: number;
  /**
   * Where long-running tools' work goes. Default: this process, at most `maxConcurrentWork` at once, the rest
   * waiting their turn. A shared queue (`mcplite/redis`) lets worker processes run it.
   */
  workQueue?: WorkQueue;
  /** With the default queue: how many promised calls run at once; the others wait in order. Default 64. */
  maxConcurrentWork?: number;
  /**
   * Work running in this process (a job a shared queue let run here local-first, a call promoted past the answer
   * budget) holds a lease in the promise store, renewed every third of this; if the process dies, once the lease
   * runs out the job is queued again for another worker, the promoted call settles as `worker_lost`. A shared
   * store is also swept for lapsed leases every half of this. Default 30 000.
   */
  leaseMs?: number;
  /** Hard limit for promised (background) work; it is aborted after this. Default ten minutes. */
  maxRunMs?: number;
}

/** Elicitation states (`ToolServerOptions.elicitation`). */
export interface ElicitationOptions {
  /** How long an elicitation state stays valid. Default ten minutes. */
  ttlMs?: number;
  /**
   * Where answered elicitation states are remembered until they expire, so that each answers one call only.
   * Without one no elicitation answer is taken (`createServer` gives a bounded memory store; replicas share a
   * Redis one, `RedisElicitationNonceStore`, so that a state answered on one is refused on all).
   */
  nonceStore?: ElicitationNonceStore;
}

/** Logs, traces and metrics (`ToolServerOptions.observability`). */
export interface ObservabilityOptions {
  /**
   * Where the server logs: a structured logger (pino or any with `child`), or `console` (any console-like object).
   * Default: warnings and errors as JSON lines on stderr, so that a handler that throws is logged once, with the
   * tool's name and the stack, while its client sees only "Internal error". Pass `silentLogger` for no log at all.
   */
  logger?: LoggerLike;
  /**
   * Log the arguments of each call with the records made during it (its handler failing included). Off by
   * default: arguments are the users' data, and may hold what no log should. Fields named like credentials
   * (`token`, `authorization`, `password`…) are redacted by the default logger either way.
   */
  logArguments?: boolean;
  /**
   * OpenTelemetry tracing and metrics (`@opentelemetry/api`, an optional peer): on when an SDK is registered
   * before the server is made; whether arguments and results go into spans (off by default). docs/observability.md.
   */
  telemetry?: TelemetryOptions;
  /** Told of every finished tool call (metrics). */
  onCallEnd?: CallObserver;
}

/** Options of a tool server (the protocol-neutral part every binding shares). */
export interface ToolServerOptions {
  /** The tools, defined once for every binding. */
  tools: readonly ToolDefinition[];
  /** Server name, reported by bindings that have a place for it. Default "mcplite". */
  name?: string;
  /** Server version, sent as `_meta.server_version`. Default "0.0.0". */
  version?: string;
  /** A human-readable title of the server (its Server Card's `title`). */
  title?: string;
  /** What the server does, in a line (its Server Card's `description`, cut to 100 characters). */
  description?: string;
  /**
   * The Server Card served at `<mcp path>/server-card` and listed in `/.well-known/ai-catalog.json`: its reverse-DNS
   * name, links, icons, public origin (docs/discovery.md). `false` serves neither. Default: a card from `name`,
   * `version`, `title` and `description`, listing the server's own MCP endpoints.
   */
  card?: ServerCardOptions | false;
  /** Promises, long-running work and the answer budget: where promises live, how long they last, who runs the work. */
  promises?: PromiseOptions;
  /** Elicitation states: how long one stays valid, where answered ones are remembered. */
  elicitation?: ElicitationOptions;
  /** Logs, OpenTelemetry traces and metrics, and the call observer. */
  observability?: ObservabilityOptions;
  /** Key that signs elicitation states and caller sessions; replicas must share it. Default: random per process. */
  secret?: string | Uint8Array;
  /**
   * How long a caller session (`ctx.setSession`, MCP-lite context, docs/tools.md) stays valid after the call that
   * set it. Default 24 hours. Sessions are signed with `secret` and bound to the caller and this server's `name`.
   */
  sessionTtlMs?: number;
  /** Optional authentication hook every binding applies (see `bearerAuth`). */
  authenticate?: Authenticate;
  /**
   * User middleware around every operation of every binding (tool calls, listings, resources, prompts,
   * completions), in order: the first is the outermost. Runs after authentication, the metrics observer and the
   * rate limiter. docs/middleware.md.
   */
  middleware?: readonly Middleware[];
  /** Resources at fixed URIs, defined once for every binding that has resources (MCP). */
  resources?: readonly ResourceDefinition[];
  /**
   * Agent Skills (`io.modelcontextprotocol/skills`): each a `SKILL.md` and its files, served as `skill://`
   * resources with `skills/list`, `skills/get` and `resources/directory/read` on MCP. Read a directory of them with
   * `loadSkills` (`mcplite/node`), or give the directory to `createServer`. Checked and bounded here (512 files, 16 MiB
   * per skill). docs/discovery.md.
   */
  skills?: readonly SkillDefinition[];
  /** Resource templates (RFC 6570 URI templates). */
  resourceTemplates?: readonly ResourceTemplateDefinition[];
  /** Prompt templates, defined once (MCP prompts, MCP-lite HTTP `prompts`). */
  prompts?: readonly PromptDefinition[];
  /**
   * The webtools (Webtools binding): named, versioned groups of actions with a config. Default: the whole
   * catalog as one webtool named after the server.
   */
  webtools?: readonly WebtoolDefinition[];
  /** Config handlers see (`ctx.config`) on bindings without one of their own. Default: the webtool's default. */
  config?: Record<string, unknown>;
  /** Per-caller rate limiting of tool calls on every binding (a store is required here; `createServer` adds one). */
  rateLimit?: RateLimitOptions;
  /**
   * How many leading bits of an IPv6 peer address make one caller for every per-caller bound of an
   * unauthenticated caller (promises, sessions, rate limits, connections, streams, calls in flight): a client with
   * a /64, the smallest block a site is given, would otherwise have 2^64 identities. IPv4 peers (IPv4-mapped
   * IPv6 included) are counted by their whole address. 128 counts each IPv6 address apart. Default 64.
   */
  ipv6CallerPrefix?: number;
  /** @deprecated Use `promises.store`; kept as an alias for one release (`groupedOptions`). */
  promiseStore?: PromiseStore;
  /** @deprecated Use `promises.answerBudgetMs`; kept as an alias for one release (`groupedOptions`). */
  answerBudgetMs?: number;
  /** @deprecated Use `promises.mcpInlineWaitMs`; kept as an alias for one release (`groupedOptions`). */
  mcpInlineWaitMs?: number;
  /** @deprecated Use `promises.ttlMs`; kept as an alias for one release (`groupedOptions`). */
  promiseTtlMs?: number;
  /** @deprecated Use `promises.maxPerCaller`; kept as an alias for one release (`groupedOptions`). */
  maxPromisesPerCaller?: number;
  /** @deprecated Use `promises.workQueue`; kept as an alias for one release (`groupedOptions`). */
  workQueue?: WorkQueue;
  /** @deprecated Use `promises.maxConcurrentWork`; kept as an alias for one release (`groupedOptions`). */
  maxConcurrentWork?: number;
  /** @deprecated Use `promises.leaseMs`; kept as an alias for one release (`groupedOptions`). */
  leaseMs?: number;
  /** @deprecated Use `promises.maxRunMs`; kept as an alias for one release (`groupedOptions`). */
  maxRunMs?: number;
  /** @deprecated Use `elicitation.ttlMs`; kept as an alias for one release (`groupedOptions`). */
  elicitationTtlMs?: number;
  /** @deprecated Use `elicitation.nonceStore`; kept as an alias for one release (`groupedOptions`). */
  elicitationNonceStore?: ElicitationNonceStore;
  /** @deprecated Use `observability.logger`; kept as an alias for one release (`groupedOptions`). */
  logger?: LoggerLike;
  /** @deprecated Use `observability.logArguments`; kept as an alias for one release (`groupedOptions`). */
  logArguments?: boolean;
  /** @deprecated Use `observability.telemetry`; kept as an alias for one release (`groupedOptions`). */
  telemetry?: TelemetryOptions;
  /** @deprecated Use `observability.onCallEnd`; kept as an alias for one release (`groupedOptions`). */
  onCallEnd?: CallObserver;
}

/** The option groups of a server, each field from its group or else from its deprecated flat alias. */
export interface GroupedOptions {
  promises: PromiseOptions;
  elicitation: ElicitationOptions;
  observability: ObservabilityOptions;
}

/**
 * The one place the deprecated flat option names map onto their groups (docs/configuration.md): a field set in its
 * group wins over its flat alias.
 */
export function groupedOptions(options: ToolServerOptions): GroupedOptions {
  const p = options.promises ?? {};
  const e = options.elicitation ?? {};
  const o = options.observability ?? {};
  return {
    promises: {
      store: p.store ?? options.promiseStore,
      answerBudgetMs: p.answerBudgetMs ?? options.answerBudgetMs,
      mcpInlineWaitMs: p.mcpInlineWaitMs ?? options.mcpInlineWaitMs,
      ttlMs: p.ttlMs ?? options.promiseTtlMs,
      maxPerCaller: p.maxPerCaller ?? options.maxPromisesPerCaller,
      workQueue: p.workQueue ?? options.workQueue,
      maxConcurrentWork: p.maxConcurrentWork ?? options.maxConcurrentWork,
      leaseMs: p.leaseMs ?? options.leaseMs,
      maxRunMs: p.maxRunMs ?? options.maxRunMs,
    },
    elicitation: {
      ttlMs: e.ttlMs ?? options.elicitationTtlMs,
      nonceStore: e.nonceStore ?? options.elicitationNonceStore,
    },
    observability: {
      logger: o.logger ?? options.logger,
      logArguments: o.logArguments ?? options.logArguments,
      telemetry: o.telemetry ?? options.telemetry,
      onCallEnd: o.onCallEnd ?? options.onCallEnd,
    },
  };
}
