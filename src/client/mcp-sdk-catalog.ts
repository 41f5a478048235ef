import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  assertDeclared,
  pagedListing,
  toContents,
  toPrompt,
  toRenderedPrompt,
  toResource,
  toResourceTemplate,
} from './catalog-wire.js';
import type { ClientLimits } from './limits.js';
import type { CatalogWire, WireContext } from './transport.js';
import { toClientError } from './wire-errors.js';

/** How `mcpSdkTransport` runs one SDK request: under the caller's signal and the connection's bounds. */
export type TrackedRequest = <T>(ctx: WireContext, run: (signal: AbortSignal) => Promise<T>) => Promise<T>;

// The SDK's own per-request timeout; the client's deadline (signal) is what really bounds a request.
const NO_TIMEOUT = 2_147_483_647;

/**
 * Resources and prompts through the SDK's Client. A server that did not declare the capability is answered
 * `method_not_found` here, without a round trip, as the SDK's strict mode would; list_changed notifications of
 * both are handed to the listeners.
 */
export function sdkCatalog(
  client: Client,
  tracked: TrackedRequest,
  sdkError: (err: unknown) => unknown,
  limits: ClientLimits,
): Required<CatalogWire> & { clear(): void } {
  const resourcesChanged = new Set<() => void>();
  const promptsChanged = new Set<() => void>();
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    for (const listener of resourcesChanged) listener();
  });
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
    for (const listener of promptsChanged) listener();
  });

  const request = async <T>(
    capability: 'resources' | 'prompts',
    ctx: WireContext,
    run: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> => {
    assertDeclared(client.getServerCapabilities(), capability);
    try {
      return await tracked(ctx, run);
    } catch (err) {
      throw toClientError(sdkError(err), ctx.signal);
    }
  };
  const options = (signal: AbortSignal) => ({ signal, timeout: NO_TIMEOUT });
  const page = (cursor: string | undefined) => (cursor ? { cursor } : {});

  return {
    listResources: (ctx) =>
      pagedListing(
        'resources',
        (cursor) => request('resources', ctx, (s) => client.listResources(page(cursor), options(s))),
        toResource,
        limits,
      ),
    listResourceTemplates: (ctx) =>
      pagedListing(
        'resourceTemplates',
        (cursor) => request('resources', ctx, (s) => client.listResourceTemplates(page(cursor), options(s))),
        toResourceTemplate,
        limits,
      ),
    readResource: async (uri, ctx) =>
      toContents(await request('resources', ctx, (s) => client.readResource({ uri }, options(s)))),
    listPrompts: (ctx) =>
      pagedListing(
        'prompts',
        (cursor) => request('prompts', ctx, (s) => client.listPrompts(page(cursor), options(s))),
        toPrompt,
        limits,
      ),
    getPrompt: async (name, args, ctx) =>
      toRenderedPrompt(
        await request('prompts', ctx, (s) => client.getPrompt({ name, arguments: args }, options(s))),
      ),
    onResourcesChanged: (listener) => void resourcesChanged.add(listener),
    onPromptsChanged: (listener) => void promptsChanged.add(listener),
    clear: () => {
      resourcesChanged.clear();
      promptsChanged.clear();
    },
  };
}
