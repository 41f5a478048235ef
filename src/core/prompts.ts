import type { Principal } from './auth.js';
import type { ContentBlock } from './content.js';
import { McpLiteError } from './errors.js';
import type { Completer } from './resources.js';
import { closestName } from './suggest.js';

/** One argument a prompt takes (prompt arguments are strings). */
export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** One message of a rendered prompt. */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

/** What a prompt handler gets besides its arguments. */
export interface PromptContext {
  readonly signal: AbortSignal;
  readonly principal: Principal | undefined;
}

/** What a prompt handler returns: a string (one user message), messages, or messages with a description. */
export type PromptValue = string | PromptMessage[] | { description?: string; messages: PromptMessage[] };

/** A prompt template, defined once for every binding. */
export interface PromptDefinition {
  /** Unique name. */
  name: string;
  title?: string;
  description?: string;
  /** The arguments it takes. */
  arguments?: PromptArgument[];
  /** Renders the prompt. */
  handler: (args: Record<string, string>, ctx: PromptContext) => PromptValue | Promise<PromptValue>;
  /** Completion of argument values, by argument name. */
  complete?: Record<string, Completer>;
}

/** A prompt as listed on the wire. */
export interface WirePrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
}

/** A rendered prompt. */
export interface RenderedPrompt {
  description?: string;
  messages: PromptMessage[];
}

/** The versioned set of prompts; listing built once per version, changes told to listeners. */
export class PromptCatalog {
  private readonly prompts = new Map<string, { definition: PromptDefinition; wire: WirePrompt }>();
  private readonly listeners = new Set<() => void>();
  private cached: WirePrompt[] | undefined;

  constructor(definitions: readonly PromptDefinition[] = []) {
    for (const d of definitions) this.insert(d);
  }

  /** Whether there are no prompts. */
  get empty(): boolean {
    return this.prompts.size === 0;
  }

  /** Adds a prompt (tells listeners). */
  add(definition: PromptDefinition): void {
    this.insert(definition);
    this.changed();
  }

  /** Removes a prompt; returns whether it was there. */
  remove(name: string): boolean {
    const removed = this.prompts.delete(name);
    if (removed) this.changed();
    return removed;
  }

  /** Every prompt, in definition order. */
  list(): readonly WirePrompt[] {
    this.cached ??= [...this.prompts.values()].map((p) => p.wire);
    return this.cached;
  }

  /**
   * Renders a prompt. An unknown name rejects with `prompt_not_found` (with the available prompts and a
   * suggestion, like unknown tools; `data.reason` says it too, for clients that read it from the wire's
   * invalid-params code), missing or non-string arguments with `invalid_params`.
   */
  async get(name: unknown, args: unknown, ctx: PromptContext): Promise<RenderedPrompt> {
    const entry = typeof name === 'string' ? this.prompts.get(name) : undefined;
    if (!entry) {
      const available = [...this.prompts.keys()];
      const suggestion = typeof name === 'string' ? closestName(name, available) : undefined;
      throw new McpLiteError('prompt_not_found', `Prompt not found: ${String(name)}`, {
        requested_prompt: name,
        available_prompts: available,
        reason: 'prompt_not_found',
        ...(suggestion ? { suggestion: `Did you mean '${suggestion}'?` } : {}),
      });
    }
    const given = args === undefined || args === null ? {} : args;
    if (typeof given !== 'object' || Array.isArray(given)) {
      throw new McpLiteError('invalid_params', 'Invalid params: "arguments" must be an object of strings');
    }
    const values: Record<string, string> = {};
    for (const [k, v] of Object.entries(given as Record<string, unknown>)) {
      if (typeof v !== 'string') {
        throw new McpLiteError('invalid_params', `Invalid arguments: '${k}' must be a string`, {
          errors: [{ field: `'${k}'`, message: 'must be a string' }],
        });
      }
      values[k] = v;
    }
    for (const a of entry.definition.arguments ?? []) {
      if (a.required && values[a.name] === undefined) {
        throw new McpLiteError('invalid_params', `Invalid arguments: '${a.name}' is required`, {
          errors: [{ field: `'${a.name}'`, message: 'is required' }],
        });
      }
    }
    const value = await entry.definition.handler(values, ctx);
    const rendered: RenderedPrompt =
      typeof value === 'string'
        ? { messages: [{ role: 'user', content: { type: 'text', text: value } }] }
        : Array.isArray(value)
          ? { messages: value }
          : value;
    const description = rendered.description ?? entry.definition.description;
    return description !== undefined
      ? { description, messages: rendered.messages }
      : { messages: rendered.messages };
  }

  /** Completion values for a prompt argument; empty when the prompt has no completer for it. */
  async complete(
    name: string,
    argument: string,
    value: string,
    args: Record<string, string>,
  ): Promise<string[]> {
    const completer = this.prompts.get(name)?.definition.complete?.[argument];
    return completer ? completer(value, { arguments: args }) : [];
  }

  /** Whether a prompt of this name exists. */
  has(name: string): boolean {
    return this.prompts.has(name);
  }

  /** Calls `listener` after every change; returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.cached = undefined;
    for (const l of this.listeners) l();
  }

  private insert(d: PromptDefinition): void {
    if (typeof d.name !== 'string' || d.name.length === 0)
      throw new McpLiteError('invalid_request', 'A prompt needs a name');
    if (this.prompts.has(d.name))
      throw new McpLiteError('invalid_request', `Duplicate prompt name "${d.name}"`);
    if (typeof d.handler !== 'function')
      throw new McpLiteError('invalid_request', `Prompt "${d.name}" has no handler`);
    const wire: WirePrompt = {
      name: d.name,
      ...(d.title ? { title: d.title } : {}),
      ...(d.description ? { description: d.description } : {}),
      ...(d.arguments ? { arguments: d.arguments } : {}),
    };
    this.prompts.set(d.name, { definition: d, wire });
  }
}
