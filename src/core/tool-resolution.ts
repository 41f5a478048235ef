import type { Authenticate } from './auth.js';
import type { Catalog, CompiledTool } from './catalog.js';
import { McpLiteError, toMcpLiteError } from './errors.js';
import { assertToolScopes } from './oauth/tool-scopes.js';
import type { OperationCaller } from './operation.js';
import type { Pipeline } from './pipeline.js';
import { unknownTool } from './system-tools.js';
import type { ToolCallOperation } from './tool-call-operation.js';
import { asToolError } from './tool-errors.js';

/**
 * How core finds a tool call's tool as its caller may see it and checks its arguments, before any handler runs:
 * an unknown or hidden tool is `tool_not_found` (a hidden one is never named), a scope the caller lacks is refused
 * before the arguments (so that nothing is learnt from their validation), and arguments the schema refuses are the
 * tool's `invalid_params`.
 */
export class ToolResolution {
  constructor(
    private readonly catalog: Catalog,
    private readonly pipeline: Pipeline,
    private readonly authenticate: Authenticate | undefined,
  ) {}

  /** Resolves `op` (its tool and checked arguments), or throws why it cannot run; a refusal kept by `screen` first. */
  resolve(op: ToolCallOperation): void {
    if (op.tool) return;
    if (op.error) throw op.error;
    const request = op.request;
    const tool = request.action ?? this.catalog.get(request.name);
    if (!tool || !this.mayCall(tool, op.caller)) throw unknownTool(request.name, this.namesFor(op.caller));
    assertToolScopes(tool.definition.auth?.scopes, request.principal, this.authenticate);
    op.arguments = this.checkArguments(tool, request.arguments);
    op.tool = tool;
  }

  /**
   * `resolve` before user middleware: a call that cannot run still walks the chain, as a refused operation
   * (`op.error`, no arguments), so that middleware sees, and an audit log records, the denied attempt; the chain's
   * end throws the refusal.
   */
  screen(op: ToolCallOperation): void {
    try {
      this.resolve(op);
    } catch (err) {
      op.error = toMcpLiteError(err);
      op.arguments = undefined;
    }
  }

  /** The arguments, checked against the input schema; what fails is the tool's error (`asToolError`), not the request's. */
  checkArguments(tool: CompiledTool, raw: unknown): Record<string, unknown> {
    const args = raw === undefined || raw === null ? {} : raw;
    if (typeof args !== 'object' || Array.isArray(args)) {
      throw asToolError(
        new McpLiteError('invalid_params', 'Invalid arguments: must be an object', {
          errors: [{ field: 'arguments', message: 'must be an object', expected: 'object' }],
        }),
      );
    }
    try {
      return tool.validateInput(args) as Record<string, unknown>;
    } catch (err) {
      throw err instanceof McpLiteError ? asToolError(err) : err;
    }
  }

  private mayCall(tool: CompiledTool, caller: OperationCaller): boolean {
    return !this.pipeline.hidesTools || this.pipeline.visible(tool.wire, caller);
  }

  /** The tool names this caller may see, for the suggestion of an unknown tool (hidden ones are never named). */
  private namesFor(caller: OperationCaller): string[] {
    if (!this.pipeline.hidesTools) return this.catalog.modelNames();
    return this.catalog
      .listing()
      .tools.filter((t) => this.pipeline.visible(t, caller))
      .map((t) => t.name);
  }
}
