import type { ToolServer } from '../../core/server.js';
import { META } from './revisions.js';
import type { SessionHub } from './sessions.js';

/** What a stateless `subscriptions/listen` stream asked to hear about. */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/** One open listen stream. */
interface Listener {
  id: unknown;
  filter: SubscriptionFilter;
  send: (message: string) => void;
}

/**
 * Fans server-side changes out to clients: list_changed and resources/updated go to initialized sessions (on
 * their GET stream, wherever it is open: every session of the binding's store hears this replica's changes) and to stateless `subscriptions/listen` streams that asked for them, tagged with the
 * subscription id.
 */
export class Notifier {
  private readonly listeners = new Set<Listener>();
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    server: ToolServer,
    sessions: SessionHub | undefined,
    extraSinks: Set<(message: string) => void>,
  ) {
    const broadcast = (method: string, flag: keyof SubscriptionFilter) => () => {
      const plain = JSON.stringify({ jsonrpc: '2.0', method });
      sessions?.broadcast(plain);
      for (const sink of extraSinks) sink(plain);
      for (const l of this.listeners) {
        if (l.filter[flag]) l.send(tagged(method, {}, l.id));
      }
    };
    this.unsubscribe.push(
      server.catalog.onChange(broadcast('notifications/tools/list_changed', 'toolsListChanged')),
      server.prompts.onChange(broadcast('notifications/prompts/list_changed', 'promptsListChanged')),
      server.resources.onChange(broadcast('notifications/resources/list_changed', 'resourcesListChanged')),
      server.resources.onUpdate((uri) => {
        const plain = JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/resources/updated',
          params: { uri },
        });
        sessions?.broadcast(plain, uri);
        for (const sink of extraSinks) sink(plain);
        for (const l of this.listeners) {
          if (l.filter.resourceSubscriptions?.includes(uri))
            l.send(tagged('notifications/resources/updated', { uri }, l.id));
        }
      }),
    );
  }

  /** Registers a listen stream; returns the function that removes it. */
  listen(id: unknown, filter: SubscriptionFilter, send: (message: string) => void): () => void {
    const l: Listener = { id, filter, send };
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Stops listening to the server. */
  close(): void {
    for (const u of this.unsubscribe.splice(0)) u();
    this.listeners.clear();
  }
}

/** A notification of a listen stream, tagged with its subscription id. */
export function tagged(method: string, params: Record<string, unknown>, subscriptionId: unknown): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    method,
    params: { ...params, _meta: { [META.subscriptionId]: subscriptionId } },
  });
}

/** The part of a requested filter this server honours. */
export function honouredFilter(
  requested: unknown,
  hasResources: boolean,
  hasPrompts: boolean,
): SubscriptionFilter {
  const r = typeof requested === 'object' && requested !== null ? (requested as Record<string, unknown>) : {};
  const f: SubscriptionFilter = {};
  if (r.toolsListChanged === true) f.toolsListChanged = true;
  if (r.promptsListChanged === true && hasPrompts) f.promptsListChanged = true;
  if (r.resourcesListChanged === true && hasResources) f.resourcesListChanged = true;
  if (Array.isArray(r.resourceSubscriptions) && hasResources) {
    f.resourceSubscriptions = r.resourceSubscriptions.filter((u): u is string => typeof u === 'string');
  }
  return f;
}
