import { type CompiledToolUi, compileToolUi } from './apps/ui.js';
import { McpLiteError } from './errors.js';
import { compileValidator, type JsonSchema, type Validator } from './schema.js';
import type { ToolDefinition, WireTool } from './tool.js';
import { convert, inputJsonSchema } from './tool-schemas.js';

/** A tool ready to call: its definition, its wire form and its validators, each computed once. */
export interface CompiledTool {
  definition: ToolDefinition;
  wire: WireTool;
  validateInput: Validator;
  validateOutput: Validator | undefined;
  /** Set for long-running tools: every call becomes a promise with this estimate. */
  longRunningEstimateMs: number | undefined;
  /** A system tool (redeem, cancel): the server answers it itself. */
  system: boolean;
  /** Its view and audience (MCP Apps), when it declares either. */
  ui: CompiledToolUi | undefined;
}

/** The listing of one catalog version, serialised once and served from this cache. */
export interface Listing {
  version: number;
  tools: readonly WireTool[];
  /** `{"tools":[…]}` as bytes-ready JSON. */
  json: string;
}

const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
const DEFAULT_ESTIMATE_MS = 5_000;
const ANY_OBJECT: JsonSchema = { type: 'object' };

/**
 * The versioned set of tools. Listings are serialised once per version; validators are compiled once per tool.
 * Changing the set bumps the version and tells listeners (for list_changed notifications).
 */
export class Catalog {
  private readonly tools = new Map<string, CompiledTool>();
  private readonly listeners = new Set<(version: number) => void>();
  private cached: Listing | undefined;
  private cachedForApps: Listing | undefined;
  private currentVersion = 1;

  /** @param reserved names that user tools may not take (the system tools). */
  constructor(
    definitions: readonly ToolDefinition[],
    private readonly reserved: ReadonlySet<string> = new Set(),
  ) {
    for (const d of definitions) this.insert(d, false);
  }

  /** The current version; bumps on every change. */
  get version(): number {
    return this.currentVersion;
  }

  /** Adds a tool (or a system tool, which may use a reserved name). */
  add(definition: ToolDefinition, system = false): void {
    this.insert(definition, system);
    this.changed();
  }

  /** Removes a tool; returns whether it was there. */
  remove(name: string): boolean {
    const removed = this.tools.delete(name);
    if (removed) this.changed();
    return removed;
  }

  /** The tool called `name`, if any. */
  get(name: string): CompiledTool | undefined {
    return this.tools.get(name);
  }

  /** Every tool name, in listing order. */
  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The names a model may see (app-only tools left out): what an unknown tool's suggestion may name. */
  modelNames(): string[] {
    return this.listing().tools.map((t) => t.name);
  }

  /**
   * The cached listing of the current version: the tools a model may see (app-only tools left out), or with
   * `forApps` every tool, for a host that shows views and keeps app-only tools from its model itself.
   */
  listing(forApps = false): Listing {
    if (forApps) {
      this.cachedForApps ??= listingOf(this.currentVersion, [...this.tools.values()]);
      return this.cachedForApps;
    }
    this.cached ??= listingOf(
      this.currentVersion,
      [...this.tools.values()].filter((t) => !t.ui?.appOnly),
    );
    return this.cached;
  }

  /** Calls `listener` after every change; returns an unsubscribe function. */
  onChange(listener: (version: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.currentVersion++;
    this.cached = undefined;
    this.cachedForApps = undefined;
    for (const l of this.listeners) l(this.currentVersion);
  }

  private insert(definition: ToolDefinition, system: boolean): void {
    const { name } = definition;
    if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
      throw new McpLiteError(
        'invalid_request',
        `Invalid tool name ${JSON.stringify(name)}: use [A-Za-z0-9_.-]{1,128}`,
      );
    }
    if (this.tools.has(name)) throw new McpLiteError('invalid_request', `Duplicate tool name "${name}"`);
    if (!system && this.reserved.has(name)) {
      throw new McpLiteError('invalid_request', `Tool name "${name}" is reserved for a system tool`);
    }
    if (typeof definition.handler !== 'function') {
      throw new McpLiteError('invalid_request', `Tool "${name}" has no handler function`);
    }
    const inputSchema = definition.inputSchema ? inputJsonSchema(name, definition.inputSchema) : ANY_OBJECT;
    const outputSchema = definition.outputSchema
      ? convert(name, 'outputSchema', definition.outputSchema)
      : undefined;
    const wire: WireTool = {
      name,
      ...(definition['@type'] ? { '@type': definition['@type'] } : {}),
      ...(definition.title ? { title: definition.title } : {}),
      description: definition.description ?? '',
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      ...(definition.annotations ? { annotations: definition.annotations } : {}),
    };
    const lr = definition.longRunning;
    this.tools.set(name, {
      definition,
      wire,
      validateInput: compileValidator(inputSchema, `the input of tool "${name}"`),
      validateOutput: outputSchema
        ? compileValidator(outputSchema, `the output of tool "${name}"`)
        : undefined,
      longRunningEstimateMs: lr
        ? ((typeof lr === 'object' ? lr.estimatedMs : undefined) ?? DEFAULT_ESTIMATE_MS)
        : undefined,
      system,
      ui: compileToolUi(definition),
    });
  }
}

function listingOf(version: number, compiled: readonly CompiledTool[]): Listing {
  const tools = compiled.map((t) => t.wire);
  return { version, tools, json: JSON.stringify({ tools }) };
}
