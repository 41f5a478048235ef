import type { CallRest, CallResult, ToolNameOf, ToolSet, TypedOutcome, UntypedTools } from './typed.js';
import type { Binding, CallOptions, CancelResult, Outcome, PartialEvent, ToolInfo } from './types.js';

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
  ): Promise<TypedOutcome<CallResult<Tools, Name>>>;
  /** Calls a tool and yields its partial results as they come, then the outcome (last). */
  stream(
    name: string,
    args?: Record<string, unknown>,
    options?: Omit<CallOptions, 'onPartial'>,
  ): AsyncGenerator<PartialEvent | Outcome, void, undefined>;
  /** Redeems a promise token (waiting until it settles unless `redeem: false`, which asks once). */
  redeem(token: string, options?: CallOptions): Promise<Outcome>;
  /** Cancels a promise's work. */
  cancel(token: string, options?: { signal?: AbortSignal }): Promise<CancelResult>;
  /** Closes connections (and ends a stdio server's process). */
  close(): Promise<void>;
  /**
   * Calls `listener` whenever the server says its tools changed (MCP `notifications/tools/list_changed`; the
   * other wires have no such notice, and never call it). The gateway re-lists its upstream on it.
   */
  onToolsChanged?(listener: () => void): void;
}
