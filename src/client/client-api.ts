import type { ResourceContents } from '../core/content.js';
import type { RenderedPrompt, WirePrompt } from '../core/prompts.js';
import type { WireResource, WireResourceTemplate } from '../core/resources.js';
import type { CallRest, ToolNameOf, ToolOutput, ToolSet, TypedOutcome, UntypedTools } from './typed.js';
import type { Binding, CallOptions, CallOutcome, CancelResult, PartialEvent, ToolInfo } from './types.js';
import type { ToolViewInfo, ViewOptions } from './views.js';

/** Options of the resources and prompts requests. */
export interface CatalogRequestOptions {
  /** Aborts the request (it then rejects with `cancelled`, or `deadline_exceeded` for a timeout reason). */
  signal?: AbortSignal;
  /** Milliseconds before it fails with `deadline_exceeded` (default: the client's `timeout`; 0: none). */
  timeout?: number;
}

/**
 * One client, one API, whatever the wire: see docs/client.md. `Tools` (the server's `defineTool` results, as
 * `typeof tools`) types `call`: names, arguments and the answer's value (`typed.ts`).
 */
export interface Client<Tools extends ToolSet = UntypedTools> {
  /** The binding spoken (detected or forced). */
  readonly binding: Binding;
  /** The target it was connected to. */
  readonly target: string;
  /** The tools (with a lock: only the locked ones, after checking that none changed). */
  listTools(options?: { signal?: AbortSignal }): Promise<ToolInfo[]>;
  /** Calls a tool; promises are redeemed until they settle unless `redeem: false`. */
  call<Name extends ToolNameOf<Tools>>(
    name: Name,
    ...rest: CallRest<Tools, Name>
  ): Promise<TypedOutcome<ToolOutput<Tools, Name>>>;
  /** Calls a tool and yields its partial results as they come, then the outcome (last). */
  stream(
    name: string,
    args?: Record<string, unknown>,
    options?: Omit<CallOptions, 'onPartial'>,
  ): AsyncGenerator<PartialEvent | CallOutcome, void, undefined>;
  /** Redeems a promise token (waiting until it settles unless `redeem: false`, which asks once). */
  redeem(token: string, options?: CallOptions): Promise<CallOutcome>;
  /** Cancels a promise's work. */
  cancel(token: string, options?: { signal?: AbortSignal }): Promise<CancelResult>;
  /**
   * The server's resources (every page, within `maxStreamBytes` in all). Resources and prompts are carried by
   * MCP (every transport); MCP-lite HTTP and gRPC carry prompts only; elsewhere these reject with `method_not_found`,
   * as they do when an MCP server did not declare the capability.
   */
  listResources(options?: CatalogRequestOptions): Promise<WireResource[]>;
  /** The server's resource templates (`resources/templates/list`). */
  listResourceTemplates(options?: CatalogRequestOptions): Promise<WireResourceTemplate[]>;
  /** Reads one resource: its contents (text, or base64 `blob`), each bounded by `maxResponseBytes`. */
  readResource(uri: string, options?: CatalogRequestOptions): Promise<ResourceContents[]>;
  /**
   * The interactive view (MCP Apps) of tool `name`, the one a host renders its calls' results in: its `ui://`
   * URI and audience, and with `html: true` the HTML and its `_meta.ui` (CSP, permissions). Undefined for a tool
   * without a view (and on the wires that carry none: MCP-lite, gRPC, Webtools).
   */
  view(name: string, options?: ViewOptions): Promise<ToolViewInfo | undefined>;
  /** The server's prompts. */
  listPrompts(options?: CatalogRequestOptions): Promise<WirePrompt[]>;
  /** Renders a prompt with its (string) arguments. */
  getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: CatalogRequestOptions,
  ): Promise<RenderedPrompt>;
  /** Closes connections (and ends a stdio server's process). */
  close(): Promise<void>;
  /**
   * Calls `listener` whenever the server says its tools changed (MCP `notifications/tools/list_changed`; the
   * other wires have no such notice, and never call it). The gateway re-lists its upstream on it.
   */
  onToolsChanged?(listener: () => void): void;
  /** Calls `listener` on each MCP `notifications/resources/list_changed` (never on other wires). */
  onResourcesChanged?(listener: () => void): void;
  /** Calls `listener` on each MCP `notifications/prompts/list_changed` (never on other wires). */
  onPromptsChanged?(listener: () => void): void;
}
