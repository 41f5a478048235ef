import type { JsonSchema } from '../core/schema.js';
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
 * One binding's wire. Each transport maps its replies to outcomes and its errors to `McpLiteError`; everything
 * else (auto-redeem, deadlines, locks, streams) is the client's, so it behaves the same on every wire.
 */
export interface Transport {
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
