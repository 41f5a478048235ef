import type { PromptDefinition } from '../core/prompts.js';
import type { ResourceDefinition, ResourceTemplateDefinition } from '../core/resources.js';
import type { ToolDefinition } from '../core/tool.js';
import type { UpstreamStatus } from './upstream.js';

/**
 * One server of a gateway as the gateway sees it: tools to list (already namespaced and transformed), a way to
 * hear that they changed, and its health. Proxied servers (`openUpstream`) and OpenAPI services are sources.
 */
export interface ToolSource {
  /** How the source is named in errors, `/readyz` and the log (no credentials). */
  readonly label: string;
  /** Lists its tools afresh; rejects (with `unavailable` naming it) while it cannot be reached. */
  list(): Promise<ToolDefinition[]>;
  /**
   * Lists its resources, resource templates and prompts afresh (namespaced as `mount` does), for sources that
   * have them; a server without them gives empty lists.
   */
  listExtras?(): Promise<SourceExtras>;
  /**
   * Calls `listener` when its tools, resources or prompts may have changed (an upstream `list_changed`, a
   * restarted upstream back).
   */
  onChange(listener: () => void): void;
  /** Its connection's state, for sources that keep one. */
  status(): UpstreamStatus | undefined;
  /** Closes it (ending a stdio upstream's process). */
  close(): Promise<void>;
}

/** What a source serves besides tools, namespaced: the parts of `createServer`'s options a gateway fills. */
export interface SourceExtras {
  /** Fixed resources, their URIs prefixed. */
  resources: ResourceDefinition[];
  /** Resource templates, their URI templates prefixed. */
  resourceTemplates: ResourceTemplateDefinition[];
  /** Prompts, named `prefix_name`. */
  prompts: PromptDefinition[];
}
