import type { CallOutcome, PromiseProgress, ToolInfo } from '../client/index.js';
import { viewUriOf } from '../client/views.js';
import { isAppOnly } from '../core/apps/ui.js';
import { printable } from '../core/printable.js';
import type { RenderedPrompt, WirePrompt } from '../core/prompts.js';

// One home for escaping a server's control characters: the gateway re-serves names and descriptions through it too.
export { printable } from '../core/printable.js';

/** Whether a stream may get colours and cursor movement: a terminal, and NO_COLOR unset. */
export function isFancy(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
}

/** Styles text for a terminal; plain text elsewhere, so piped output never carries escape codes. */
export function style(fancy: boolean) {
  const wrap = (open: number, close: number) => (s: string) =>
    fancy ? `\x1b[${open}m${s}\x1b[${close}m` : s;
  return { bold: wrap(1, 22), dim: wrap(2, 22), red: wrap(31, 39), green: wrap(32, 39), cyan: wrap(36, 39) };
}

/**
 * The tool listing as text: grouped by `@type` (untyped first, system last), one line per tool; a tool with an
 * interactive view (MCP Apps) is marked `[view ui://…]`, one only a view may call `[app only]`.
 */
export function toolsTable(tools: readonly ToolInfo[], fancy: boolean): string {
  const s = style(fancy);
  const groups = new Map<string, ToolInfo[]>();
  for (const tool of tools) {
    const type = tool['@type'] ?? '';
    groups.set(type, [...(groups.get(type) ?? []), tool]);
  }
  const order = [...groups.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const width = Math.min(32, Math.max(4, ...tools.map((t) => printable(t.name, false).length)));
  const lines: string[] = [];
  for (const type of order) {
    if (lines.length > 0) lines.push('');
    lines.push(s.bold(type === '' ? '(no @type)' : `@type ${printable(type, false)}`));
    for (const tool of groups.get(type)!) {
      const params = printable(paramsOf(tool), false);
      const summary = printable(firstLine(tool.description), false);
      const name = printable(tool.name, false);
      const marks = appMarks(tool);
      lines.push(
        `  ${s.cyan(name.padEnd(width))}  ${summary}${params ? s.dim(`  (${params})`) : ''}${marks ? s.green(`  ${marks}`) : ''}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The prompt listing as text: one line per prompt, its arguments (`?` when optional) after it. */
export function promptsTable(prompts: readonly WirePrompt[], fancy: boolean): string {
  if (prompts.length === 0) return '(no prompts)\n';
  const s = style(fancy);
  const width = Math.min(32, Math.max(4, ...prompts.map((p) => printable(p.name, false).length)));
  const lines = prompts.map((p) => {
    const args = (p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ');
    const summary = printable(firstLine(p.description ?? p.title ?? ''), false);
    const name = printable(p.name, false);
    return `${s.cyan(name.padEnd(width))}  ${summary}${args ? s.dim(`  (${printable(args, false)})`) : ''}`;
  });
  return `${lines.join('\n')}\n`;
}

/** A rendered prompt as text: its description, then each message under its role; non-text content as JSON. */
export function renderedPromptText(rendered: RenderedPrompt, fancy: boolean): string {
  const s = style(fancy);
  const parts = rendered.description ? [s.dim(printable(rendered.description, false)), ''] : [];
  for (const m of rendered.messages) {
    const content = m.content.type === 'text' ? m.content.text : formatValue(m.content);
    parts.push(s.bold(`[${printable(m.role, false)}]`), printable(content), '');
  }
  return `${parts.join('\n')}`;
}

/** `[view ui://…]` and `[app only]`, as a tool's MCP Apps declaration says. */
function appMarks(tool: ToolInfo): string {
  const uri = viewUriOf(tool);
  return [
    ...(uri !== undefined ? [`[view ${printable(uri, false)}]`] : []),
    ...(isAppOnly(tool.ui) ? ['[app only]'] : []),
  ].join(' ');
}

function rank(type: string): number {
  return type === '' ? 0 : type === 'system' ? 2 : 1;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

function paramsOf(tool: ToolInfo): string {
  const schema = tool.inputSchema as {
    properties?: Record<string, { type?: unknown; enum?: unknown }>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {})
    .map(([k, v]) => `${k}${required.has(k) ? '' : '?'}${typeOf(v)}`)
    .join(', ');
}

/** A property's type as the list shows it: an enum (z.enum) by its values, else its JSON Schema type. */
function typeOf(prop: { type?: unknown; enum?: unknown } | undefined): string {
  if (Array.isArray(prop?.enum) && prop.enum.length > 0) {
    const values = prop.enum.map((v) => JSON.stringify(v)).join(' | ');
    return `: ${values.length > 60 ? `${values.slice(0, 57)}...` : values}`;
  }
  return typeof prop?.type === 'string' ? `: ${prop.type}` : '';
}

/**
 * A value as the user reads it: strings as they are, anything else as indented JSON; printable either way
 * (JSON leaves DEL and C1 characters raw).
 */
export function formatValue(value: unknown): string {
  return printable(typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value)));
}

/** The outcome as `--json` prints it: one object, `outcome` naming the kind. */
export function outcomeJson(outcome: CallOutcome, partials?: unknown[]): Record<string, unknown> {
  const { type, ...rest } = outcome as CallOutcome & Record<string, unknown>;
  const fields = Object.fromEntries(Object.entries(rest).filter(([, v]) => typeof v !== 'function'));
  return { outcome: type, ...fields, ...(partials && partials.length > 0 ? { partials } : {}) };
}

/** The live line shown while a promise is redeemed: token, estimate, elapsed. */
export function progressLine(p: PromiseProgress, now: number, started: number): string {
  const token = printable(p.token.length > 18 ? `${p.token.slice(0, 16)}…` : p.token, false);
  const eta = p.estimatedCompletion ? Date.parse(p.estimatedCompletion) - now : Number.NaN;
  const estimate = Number.isFinite(eta)
    ? eta > 0
      ? `expected in ${seconds(eta)}`
      : `expected ${seconds(-eta)} ago`
    : 'no estimate';
  const spinner = '|/-\\'[Math.floor((now - started) / 250) % 4];
  return `${spinner} waiting on promise ${token}  ${estimate}  elapsed ${seconds(now - started)}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}
