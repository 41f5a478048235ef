import { McpLiteError } from '../errors.js';
import type { Middleware } from '../operation.js';
import { failure } from '../outcomes.js';
import type { ToolServer } from '../server.js';
import { CANCEL_TOOL, REDEEM_TOOL } from '../system-tools.js';
import { defineTool, type ToolContext, type ToolDefinition, type WireTool } from '../tool.js';
import { Bm25Index } from './bm25.js';

/**
 * Search over a large catalog (docs/discovery.md, "Tool search"): a model is shown a small surface, a search
 * tool and a call tool (and any tools named in `alwaysShow`), instead of thousands of tool definitions. The system
 * tools `redeem` and `cancel` stay listed where the server offers them: a call that became a promise is finished
 * through them, and a model only calls what it was shown. The search
 * ranks the catalog by BM25 over names, descriptions and schemas, and returns only tools the caller's own
 * listing holds, so a tool visibility hides from a caller is never found by it; the call tool calls through the
 * server's ordinary path (visibility, scopes, validation, the chain), so nothing can be called that the caller
 * could not call by name. `createServer({ toolSearch: true })` installs it; this is the same by hand.
 */

/** Options of `toolSearch`. */
export interface ToolSearchOptions {
  /** The search tool's name. Default `search_tools`. */
  searchToolName?: string;
  /** The call tool's name. Default `call_tool`. */
  callToolName?: string;
  /** Most tools one search returns (a caller may ask for fewer). Default 10, at most 50. */
  maxResults?: number;
  /** Tools listed beside the two (e.g. the few every conversation needs). */
  alwaysShow?: readonly string[];
}

/** The parts to install: the two tools, the listing middleware (outermost), and the server to search. */
export interface ToolSearch {
  /** The search and call tools, to add to the server's tools. */
  readonly tools: ToolDefinition[];
  /** Replaces each caller's listing with the small surface: put it first in `middleware`. */
  readonly middleware: Middleware;
  /** Gives the tools the server they search and call (once it is made). */
  attach(server: ToolServer): void;
}

/** Listings made for a search (their headers objects): the surface middleware lets them through whole. */
const fullListings = new WeakSet<object>();

/** The search tool, the call tool and the middleware that shows a model only them. */
export function toolSearch(options: ToolSearchOptions = {}): ToolSearch {
  const searchName = options.searchToolName ?? 'search_tools';
  const callName = options.callToolName ?? 'call_tool';
  const limit = Math.max(1, Math.min(50, options.maxResults ?? 10));
  const surface = new Set([searchName, callName, REDEEM_TOOL, CANCEL_TOOL, ...(options.alwaysShow ?? [])]);
  let server: ToolServer | undefined;
  let indexed: { version: number; index: Bm25Index } | undefined;

  const attached = (): ToolServer => {
    if (!server) throw new McpLiteError('internal', 'toolSearch: attach(server) was not called');
    return server;
  };
  /** The index of the catalog as it is now (rebuilt when it changes), the two tools left out. */
  const index = (): Bm25Index => {
    const listing = attached().listTools();
    if (indexed?.version !== listing.version) {
      // The search, call and system tools are listed already: a search finds the catalog's.
      const own = [searchName, callName, REDEEM_TOOL, CANCEL_TOOL];
      const tools = listing.tools.filter((t) => !own.includes(t.name));
      indexed = { version: listing.version, index: new Bm25Index(tools) };
    }
    return indexed.index;
  };
  /** What this caller's own listing holds: visibility and every listing filter of the chain applied. */
  const visibleTo = async (ctx: ToolContext): Promise<Set<string>> => {
    const headers = { ...ctx.headers };
    fullListings.add(headers);
    const listing = await attached().listToolsFor({
      principal: ctx.principal,
      headers,
      binding: ctx.binding,
    });
    return new Set(listing.tools.map((t) => t.name));
  };

  const search = defineTool({
    name: searchName,
    description:
      'Searches the tools this server has for the ones that fit a task, best first. Call the one you pick with ' +
      `${callName}, giving its name and its arguments as its inputSchema describes.`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 1000, description: 'What the tool should do' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: limit,
          description: `At most this many (default ${limit})`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    handler: async (args: { query: string; limit?: number }, ctx) => {
      const visible = await visibleTo(ctx);
      const found = index().search(args.query, args.limit ?? limit, (t) => visible.has(t.name));
      return { tools: found.map(shown) };
    },
  });
  const call = defineTool({
    name: callName,
    description: `Calls a tool ${searchName} found, by its name, with its arguments.`,
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 256 },
        arguments: { type: 'object', description: "The tool's arguments" },
      },
      required: ['name'],
      additionalProperties: false,
    },
    handler: async (args: { name: string; arguments?: Record<string, unknown> }, ctx) => {
      if (args.name === searchName || args.name === callName)
        return failure(`${callName} calls the tools ${searchName} finds, not itself`, {
          code: 'invalid_params',
        });
      const { outcome } = await attached().callTool({
        name: args.name,
        arguments: args.arguments ?? {},
        principal: ctx.principal,
        headers: ctx.headers,
        binding: ctx.binding,
        signal: ctx.signal,
      });
      if (outcome.type === 'answer') return outcome.result;
      if (outcome.type === 'failure')
        return failure(outcome.message, outcome.code ? { code: outcome.code } : {});
      // A long call became a promise: the model redeems it with the listed `redeem` tool.
      if (outcome.type === 'promise')
        return {
          promise: outcome.token,
          estimatedCompletion: outcome.estimatedCompletion,
          next: `${args.name} is still running: call ${REDEEM_TOOL} with this promise for its result`,
        };
      return failure(`${args.name} answered with a ${outcome.type}; call it by name to continue`);
    },
  });

  const middleware: Middleware = (op, next) => {
    if (op.method !== 'tools/list' || fullListings.has(op.caller.headers)) return next();
    const listed = next();
    const small = (tools: unknown) => (tools as readonly WireTool[]).filter((t) => surface.has(t.name));
    return listed instanceof Promise ? listed.then(small) : small(listed);
  };

  return {
    tools: [search, call],
    middleware,
    attach(s) {
      server = s;
    },
  };
}

/** A found tool as the model sees it. */
function shown(tool: WireTool): Record<string, unknown> {
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema,
  };
}
