import type { ResourceContents } from '../core/content.js';
import { McpLiteError } from '../core/errors.js';
import type { PromptMessage, RenderedPrompt, WirePrompt } from '../core/prompts.js';
import type { WireResource, WireResourceTemplate } from '../core/resources.js';
import { boundExceeded, type ClientLimits } from './limits.js';
import { toToolInfo } from './lite-result.js';
import type { CatalogWire, WireContext } from './transport.js';
import type { ToolInfo } from './types.js';
import { isRecord } from './wire-errors.js';

/** The most pages one listing follows: a server whose cursors never end costs a bounded number of requests. */
export const MAX_LISTING_PAGES = 1000;

/**
 * Follows a paginated listing (`fetchPage(cursor)` gives `{ [key]: items, nextCursor }`), keeping the entries
 * `accept` makes sense of. Every page is bounded by the wire (`maxResponseBytes`); all of them together by
 * `maxStreamBytes`, so that many pages cost bounded memory too.
 */
export async function pagedListing<T>(
  key: string,
  fetchPage: (cursor: string | undefined) => Promise<unknown>,
  accept: (raw: Record<string, unknown>) => T | undefined,
  limits: ClientLimits,
): Promise<T[]> {
  const items: T[] = [];
  let bytes = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LISTING_PAGES; page++) {
    const reply = await fetchPage(cursor);
    const list = isRecord(reply) && Array.isArray(reply[key]) ? (reply[key] as unknown[]) : [];
    for (const raw of list) {
      if (!isRecord(raw)) continue;
      const item = accept(raw);
      if (item === undefined) continue;
      bytes += JSON.stringify(item).length;
      if (bytes > limits.maxStreamBytes) throw boundExceeded('maxStreamBytes', limits.maxStreamBytes);
      items.push(item);
    }
    cursor = isRecord(reply) && typeof reply.nextCursor === 'string' ? reply.nextCursor : undefined;
    if (!cursor) break;
  }
  return items;
}

/**
 * Every page of a handshake server's `tools/list` (`fetchPage(params)` gives one reply), each tool as the client
 * reads it. Unlike `pagedListing`, every tool record is kept, malformed ones too: a caller (the gateway) leaves out
 * what it cannot serve, saying why.
 */
export async function listToolPages(
  fetchPage: (params: { cursor?: string }) => Promise<unknown>,
): Promise<ToolInfo[]> {
  const tools: ToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LISTING_PAGES; page++) {
    const reply = await fetchPage(cursor ? { cursor } : {});
    const listed: unknown[] = isRecord(reply) && Array.isArray(reply.tools) ? reply.tools : [];
    for (const t of listed) if (isRecord(t)) tools.push(toToolInfo(t));
    cursor = isRecord(reply) && typeof reply.nextCursor === 'string' ? reply.nextCursor : undefined;
    if (!cursor) break;
  }
  return tools;
}

/** A listed resource, when it has the URI and name every resource has. */
export function toResource(raw: Record<string, unknown>): WireResource | undefined {
  return typeof raw.uri === 'string' && raw.uri.length > 0 && typeof raw.name === 'string'
    ? (raw as unknown as WireResource)
    : undefined;
}

/** A listed resource template, when it has its URI template and name. */
export function toResourceTemplate(raw: Record<string, unknown>): WireResourceTemplate | undefined {
  return typeof raw.uriTemplate === 'string' && raw.uriTemplate.length > 0 && typeof raw.name === 'string'
    ? (raw as unknown as WireResourceTemplate)
    : undefined;
}

/** A listed prompt, when it has a name (its arguments kept only when they are a list). */
export function toPrompt(raw: Record<string, unknown>): WirePrompt | undefined {
  if (typeof raw.name !== 'string' || raw.name.length === 0) return undefined;
  const { arguments: args, ...rest } = raw;
  return {
    ...(rest as unknown as WirePrompt),
    ...(Array.isArray(args)
      ? { arguments: args.filter(isRecord) as unknown as WirePrompt['arguments'] }
      : {}),
  };
}

/** The contents of a `resources/read` reply; a reply without them is the server's fault, said as such. */
export function toContents(reply: unknown): ResourceContents[] {
  if (!isRecord(reply) || !Array.isArray(reply.contents))
    throw new McpLiteError('internal', 'The server answered resources/read without contents');
  return reply.contents.filter(
    (c): c is ResourceContents => isRecord(c) && typeof c.uri === 'string',
  ) as ResourceContents[];
}

/** A `prompts/get` reply as a rendered prompt; a reply without messages is the server's fault. */
export function toRenderedPrompt(reply: unknown): RenderedPrompt {
  if (!isRecord(reply) || !Array.isArray(reply.messages))
    throw new McpLiteError('internal', 'The server answered prompts/get without messages');
  const messages = reply.messages.filter(
    (m): m is PromptMessage => isRecord(m) && typeof m.role === 'string' && isRecord(m.content),
  ) as PromptMessage[];
  return typeof reply.description === 'string' ? { description: reply.description, messages } : { messages };
}

/**
 * A handshake server that did not declare `capability` is answered `method_not_found` without a round trip, as
 * the SDK's strict mode would: thrown here unless the server's `capabilities` name it.
 */
export function assertDeclared(
  capabilities: Record<string, unknown> | undefined,
  capability: 'resources' | 'prompts',
): void {
  if (capabilities?.[capability]) return;
  throw new McpLiteError('method_not_found', `The server does not serve ${capability}`, {
    reason: 'capability_not_declared',
    capability,
  });
}

/** One JSON-RPC exchange of a wire that maps its own errors (the stateless MCP transport's `rpc`). */
export type RpcExchange = (
  method: string,
  params: Record<string, unknown>,
  ctx: WireContext,
) => Promise<unknown>;

/** Resources and prompts over a plain JSON-RPC exchange (the stateless revision has no notifications for them). */
export function rpcCatalog(rpc: RpcExchange, limits: ClientLimits): CatalogWire {
  const page = (cursor: string | undefined) => (cursor ? { cursor } : {});
  return {
    listResources: (ctx) =>
      pagedListing('resources', (c) => rpc('resources/list', page(c), ctx), toResource, limits),
    listResourceTemplates: (ctx) =>
      pagedListing(
        'resourceTemplates',
        (c) => rpc('resources/templates/list', page(c), ctx),
        toResourceTemplate,
        limits,
      ),
    readResource: async (uri, ctx) => toContents(await rpc('resources/read', { uri }, ctx)),
    listPrompts: (ctx) => pagedListing('prompts', (c) => rpc('prompts/list', page(c), ctx), toPrompt, limits),
    getPrompt: async (name, args, ctx) =>
      toRenderedPrompt(await rpc('prompts/get', { name, arguments: args }, ctx)),
  };
}
