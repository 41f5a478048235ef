import { type Authenticate, anyOf } from './core/auth.js';
import type { PromiseStore } from './core/promises/store.js';
import type { RateLimitOptions } from './core/rate-limit.js';
import { ToolServer } from './core/server.js';
import { groupedOptions, type PromiseOptions, type ToolServerOptions } from './core/server-options.js';
import type { SkillDefinition } from './core/skills/skills.js';
import { type ToolSearchOptions, toolSearch } from './core/tool-search/tool-search.js';
import { loadSkillsSync } from './load-skills.js';
import { MemoryPromiseStore } from './stores/memory.js';
import { MemoryElicitationNonceStore } from './stores/memory-elicitation-nonces.js';
import { MemoryRateLimitStore } from './stores/memory-rate-limit.js';

/** Options of `createServer`: the core options, with the stores defaulting to the memory stores. */
export interface ServerOptions
  extends Omit<ToolServerOptions, 'promises' | 'promiseStore' | 'rateLimit' | 'skills'> {
  /** As `ToolServerOptions.promises`, with `store` defaulting to a new in-memory store; `false` turns promises off. */
  promises?: Omit<PromiseOptions, 'store'> & { store?: PromiseStore | false };
  /**
   * Agent Skills (docs/discovery.md, "Skills"): a list of definitions, on any runtime, or a directory of skills
   * (each a subdirectory with its `SKILL.md`), read once here with `loadSkills`'s bounds where the runtime has a
   * file system (Node, Bun, Deno, Workers with `nodejs_compat`); elsewhere a directory is refused, saying so.
   */
  skills?: readonly SkillDefinition[] | string;
  /** @deprecated Use `promises.store`; kept as an alias for one release. */
  promiseStore?: PromiseStore | false;
  /**
   * Per-caller rate limiting of tool calls on every binding: a number is requests per second (burst the same),
   * an object sets the burst and the bucket store too (default: a bounded in-memory store). Default: none.
   */
  rateLimit?: number | RateLimitOptions;
  /**
   * How callers authenticate on every HTTP binding and gRPC: `oauthResourceServer({ issuer, resource })` for OAuth
   * 2.1 access tokens, `bearerAuth([...])` for a fixed token list, or any `Authenticate` hook. Given together with
   * `authenticate`, a caller either accepts is let in (`anyOf`).
   */
  auth?: Authenticate;
  /**
   * Search over a large catalog: every caller's listing shows a search tool and a call tool (plus `alwaysShow`)
   * instead of every tool; the search ranks the tools that caller may see by name, description and schema (BM25),
   * the call tool calls one by name through the ordinary path. `true` for the defaults. docs/discovery.md.
   */
  toolSearch?: boolean | ToolSearchOptions;
}

/**
 * Creates a tool server with the embedded defaults (in-memory promises and used elicitation nonces; warnings and
 * errors, a throwing handler's among them, logged to stderr unless `logger` says otherwise). Serve it with `serve`.
 */
export function createServer(options: ServerOptions): ToolServer {
  const {
    promises,
    promiseStore,
    rateLimit,
    auth,
    toolSearch: searchOptions,
    skills: given,
    ...rest
  } = options;
  // A directory is read here, once, where the runtime has a file system (load-skills.ts, which imports no Node module).
  const skills = typeof given === 'string' ? loadSkillsSync(given) : given;
  const search = searchOptions ? toolSearch(searchOptions === true ? {} : searchOptions) : undefined;
  const authenticate =
    auth && rest.authenticate ? anyOf(rest.authenticate, auth) : (auth ?? rest.authenticate);
  const chosen = promises?.store ?? promiseStore;
  const store = chosen === false ? undefined : (chosen ?? new MemoryPromiseStore());
  // The nonce store of either spelling (groupedOptions), else a bounded memory one.
  const { elicitation } = groupedOptions({ ...rest, promises: {} });
  const limit = typeof rateLimit === 'number' ? { requestsPerSecond: rateLimit } : rateLimit;
  const server = new ToolServer({
    ...rest,
    ...(skills ? { skills } : {}),
    ...(search
      ? {
          tools: [...rest.tools, ...search.tools],
          middleware: [search.middleware, ...(rest.middleware ?? [])],
        }
      : {}),
    ...(authenticate ? { authenticate } : {}),
    elicitation: { ...elicitation, nonceStore: elicitation.nonceStore ?? new MemoryElicitationNonceStore() },
    promises: { ...promises, store },
    ...(limit ? { rateLimit: { ...limit, store: limit.store ?? new MemoryRateLimitStore() } } : {}),
  });
  search?.attach(server);
  return server;
}
