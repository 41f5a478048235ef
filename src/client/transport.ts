import type { ResourceContents } from '../core/content.js';
import type { McpLiteError } from '../core/errors.js';
import type { RenderedPrompt, WirePrompt } from '../core/prompts.js';
import type { WireResource, WireResourceTemplate } from '../core/resources.js';
import type { JsonSchema } from '../core/schema.js';
import type { HttpFetch } from './http-fetch.js';
import type {
  AnswerOutcome,
  Binding,
  CancelResult,
  ElicitationRequest,
  FailureOutcome,
  PromiseOutcome,
  ResourceRequestOutcome,
  ToolInfo,
} from './types.js';

/** What one wire exchange may use: the caller's signal (deadline included) and the partials sink. */
export interface WireContext {
  signal?: AbortSignal;
  onPartial?: (value: unknown) => void;
  /**
   * The W3C trace context of the client's span (`traceparent`, `tracestate`, `baggage`), when an OpenTelemetry
   * SDK is registered: each transport sends it in the request's `_meta` and in its headers or gRPC metadata.
   */
  trace?: Record<string, string>;
  /**
   * Ends this exchange with `err` (a bound the server broke on a connection several exchanges share): `signal`
   * aborts with it. Given by the client with the call's own signal, so a transport need not make another.
   */
  fail?: (err: McpLiteError) => void;
  /**
   * The fetch this call's HTTP requests go through, in place of the transport's own (MCP-lite HTTP): the inspector
   * passes one per round that records the exchange as sent and received, and reaches a binding in its process.
   */
  fetch?: HttpFetch;
  /** The result object as the wire carried it, before it is decoded (MCP-lite HTTP): the inspector shows its `_meta`. */
  onResult?: (result: Record<string, unknown>) => void;
}

/**
 * An elicitation as a transport returns it: `resume` performs the next round on the same wire (answers, or
 * `undefined` to decline). The client turns it into the public `answer()`/`decline()` continuation.
 */
export interface WireElicitation {
  type: 'elicitation';
  message: string;
  requestedSchema: JsonSchema;
  requests?: Record<string, ElicitationRequest>;
  resume(values: Record<string, unknown> | undefined, ctx: WireContext): Promise<WireOutcome>;
}

/** An outcome as a transport returns it. */
export type WireOutcome =
  | AnswerOutcome
  | FailureOutcome
  | PromiseOutcome
  | ResourceRequestOutcome
  | WireElicitation;

/**
 * What a wire offers beyond tools: resources and prompts (MCP's, and MCP-lite HTTP's `prompts` endpoint). A
 * transport without one of them leaves it out, and the client answers `method_not_found` naming the binding.
 */
export interface CatalogWire {
  /** `resources/list`, every page. */
  listResources?(ctx: WireContext): Promise<WireResource[]>;
  /** `resources/templates/list`, every page. */
  listResourceTemplates?(ctx: WireContext): Promise<WireResourceTemplate[]>;
  /** `resources/read`: the contents. */
  readResource?(uri: string, ctx: WireContext): Promise<ResourceContents[]>;
  /** `prompts/list`, every page. */
  listPrompts?(ctx: WireContext): Promise<WirePrompt[]>;
  /** `prompts/get`: the rendered messages. */
  getPrompt?(name: string, args: Record<string, string>, ctx: WireContext): Promise<RenderedPrompt>;
  /** Calls `listener` on each `notifications/resources/list_changed`. */
  onResourcesChanged?(listener: () => void): void;
  /** Calls `listener` on each `notifications/prompts/list_changed`. */
  onPromptsChanged?(listener: () => void): void;
}

/**
 * One binding's wire. Each transport maps its replies to outcomes and its errors to `McpLiteError`; everything
 * else (auto-redeem, deadlines, locks, streams) is the client's, so it behaves the same on every wire. Resources
 * and prompts (`CatalogWire`) are there on the wires that carry them.
 */
export interface Transport extends CatalogWire {
  readonly binding: Binding;
  /** True when `redeem` can wait server-side (`wait_ms`); otherwise the client backs off between attempts. */
  readonly canWait: boolean;
  listTools(ctx: WireContext): Promise<ToolInfo[]>;
  call(name: string, args: Record<string, unknown>, ctx: WireContext): Promise<WireOutcome>;
  redeem(token: string, waitMs: number, ctx: WireContext): Promise<WireOutcome>;
  cancel(token: string, ctx: WireContext): Promise<CancelResult>;
  close(): Promise<void>;
  /**
   * Where the wire tells of catalog changes (MCP `notifications/tools/list_changed`): calls `listener` on each,
   * so a lock is checked again before the next call.
   */
  onToolsChanged?(listener: () => void): void;
}
