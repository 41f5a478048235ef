import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { McpLiteError } from '../core/errors.js';
import type { LockedTool, Lockfile, ToolInfo } from './types.js';
import { isRecord } from './wire-errors.js';

/** One pinned tool that the server no longer serves as it was locked. */
export interface LockChange {
  tool: string;
  kind: 'changed' | 'removed';
  /** Readable lines: each changed field with its old and new value. */
  diff: string[];
}

/**
 * Pins a catalog: what a model or a host acts on of each tool (name, @type, title, description, schemas,
 * annotations, `_meta.ui`) and hashes of it.
 */
export function createLock(tools: readonly ToolInfo[], target?: string): Lockfile {
  const entries: Record<string, LockedTool> = {};
  for (const tool of [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const pinned = pinnedView(tool);
    entries[tool.name] = { hash: sha256(canonical({ name: tool.name, ...pinned })), ...pinned };
  }
  return {
    mcplite_lock: 2,
    ...(target ? { target } : {}),
    created: new Date().toISOString(),
    hash: catalogHash(entries),
    tools: entries,
  };
}

/**
 * Checks a server's catalog against a lock. Returns the tools to offer (the locked ones, as served) and what
 * changed: a locked tool whose pinned fields (title, description, schemas, annotations, `_meta.ui`) differ, or
 * that is gone. Tools added since the lock are
 * not offered at all, so nothing the lock's reviewer never saw reaches a model.
 */
export function checkLock(
  lock: Lockfile,
  tools: readonly ToolInfo[],
): { visible: ToolInfo[]; changes: LockChange[] } {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const visible: ToolInfo[] = [];
  const changes: LockChange[] = [];
  for (const [name, locked] of Object.entries(lock.tools)) {
    const served = byName.get(name);
    if (!served) {
      changes.push({ tool: name, kind: 'removed', diff: ['the server no longer lists it'] });
      continue;
    }
    const now = pinnedView(served);
    if (sha256(canonical({ name, ...now })) === locked.hash) {
      visible.push(served);
      continue;
    }
    const { hash: _h, ...was } = locked;
    changes.push({ tool: name, kind: 'changed', diff: diffJson(was, now, '') });
  }
  return { visible, changes };
}

/** The error a changed server is refused with: one paragraph per changed tool, with its diff. */
export function lockMismatch(changes: readonly LockChange[]): McpLiteError {
  const lines = changes.flatMap((c) => [`tool "${c.tool}" ${c.kind}:`, ...c.diff.map((d) => `  ${d}`)]);
  const names = changes.map((c) => c.tool).join(', ');
  return new McpLiteError(
    'forbidden',
    `The server's tools differ from the lockfile (${names}):\n${lines.join('\n')}`,
    {
      reason: 'lock_mismatch',
      changes,
    },
  );
}

/** Reads and checks a lockfile. */
export async function readLockfile(path: string): Promise<Lockfile> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new McpLiteError('invalid_request', `Cannot read lockfile ${path}: ${(err as Error).message}`);
  }
  if (isRecord(parsed) && parsed.mcplite_lock === 1)
    throw new McpLiteError(
      'invalid_request',
      `${path} was made by an older mcplite, which did not pin titles and annotations: run \`mcplite lock\` again`,
    );
  if (!isLockfile(parsed)) throw new McpLiteError('invalid_request', `${path} is not an mcplite lockfile`);
  return parsed;
}

/** True for an object shaped like a lockfile. */
export function isLockfile(value: unknown): value is Lockfile {
  return (
    isRecord(value) &&
    value.mcplite_lock === 2 &&
    typeof value.hash === 'string' &&
    isRecord(value.tools) &&
    Object.values(value.tools).every((t) => isRecord(t) && typeof t.hash === 'string')
  );
}

function pinnedView(tool: ToolInfo): Omit<LockedTool, 'hash'> {
  return {
    ...(tool['@type'] !== undefined ? { '@type': tool['@type'] } : {}),
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
    ...(tool.ui !== undefined ? { ui: tool.ui } : {}),
  };
}

function catalogHash(tools: Record<string, LockedTool>): string {
  return sha256(
    Object.keys(tools)
      .sort()
      .map((n) => `${n}:${tools[n]!.hash}`)
      .join('\n'),
  );
}

function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** JSON with sorted keys, so equal values hash equally whatever order the server sends fields in. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value)) {
    return `{${Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The differing leaves of two JSON values, as `path: old → new` (texts as -/+ lines). */
function diffJson(was: unknown, now: unknown, path: string): string[] {
  if (canonical(was) === canonical(now)) return [];
  if (isRecord(was) && isRecord(now)) {
    const keys = [...new Set([...Object.keys(was), ...Object.keys(now)])].sort();
    return keys.flatMap((k) => diffJson(was[k], now[k], path ? `${path}.${k}` : k));
  }
  if (typeof was === 'string' && typeof now === 'string') return [`${path}:`, `  - ${was}`, `  + ${now}`];
  const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));
  return [`${path}: ${show(was)} → ${show(now)}`];
}
