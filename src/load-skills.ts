import type { Dirent } from 'node:fs';
import { McpLiteError } from './core/errors.js';
import {
  MAX_FILES_PER_SKILL,
  MAX_SKILL_BYTES,
  MAX_SKILLS,
  type SkillDefinition,
  type SkillFile,
} from './core/skills/skills.js';

/** Bounds of `loadSkills`. */
export interface LoadSkillsOptions {
  /** Most skill directories read. Default 1000. */
  maxSkills?: number;
  /** Most files in one skill. Default 512 (the extension's limit). */
  maxFiles?: number;
  /** Most bytes in one skill. Default 16 MiB (the extension's limit). */
  maxBytes?: number;
  /** Deepest subdirectory followed inside a skill. Default 8. */
  maxDepth?: number;
}

/**
 * Reads a directory of Agent Skills for `createServer({ skills })`: each subdirectory holding a `SKILL.md` is a
 * skill, its files read whole (names starting with `.` left out, symbolic links never followed, so nothing outside
 * the directory is served). Bounded while read: a skill past `maxFiles` or `maxBytes`, or a directory past
 * `maxSkills`, is refused with `invalid_params` before more is read. A list of skills is `[...]` of definitions,
 * which any runtime takes; this reader needs a file system (`createServer` uses it for a directory).
 */
export async function loadSkills(dir: string, options: LoadSkillsOptions = {}): Promise<SkillDefinition[]> {
  return loadSkillsSync(dir, options);
}

/**
 * `loadSkills`, read at once: what `createServer({ skills: '<directory>' })` uses, as a server
 * is made synchronously (skills are read once, at start). A directory that cannot be read is refused by name.
 */
export function loadSkillsSync(dir: string, options: LoadSkillsOptions = {}): SkillDefinition[] {
  const files = fileSystem(dir);
  const { readdirSync, lstatSync, join } = files;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    throw refused(`cannot read the skills directory ${dir}: ${(err as Error).message}`);
  }
  const maxSkills = options.maxSkills ?? MAX_SKILLS;
  const skills: SkillDefinition[] = [];
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const root = join(dir, entry.name);
    const hasManifest = lstatSync(join(root, 'SKILL.md'), { throwIfNoEntry: false })?.isFile() ?? false;
    if (!hasManifest) continue;
    if (skills.length >= maxSkills) throw refused(`${dir} holds more than ${maxSkills} skills`);
    const budget = {
      files: options.maxFiles ?? MAX_FILES_PER_SKILL,
      bytes: options.maxBytes ?? MAX_SKILL_BYTES,
    };
    const read: SkillFile[] = [];
    readTree(files, root, '', options.maxDepth ?? 8, budget, read, entry.name);
    skills.push({ files: read });
  }
  return skills;
}

type FileSystem = Pick<typeof import('node:fs'), 'readdirSync' | 'lstatSync' | 'readFileSync'> &
  Pick<typeof import('node:path'), 'join'>;

/**
 * `node:fs` and `node:path` where the runtime has them (Node, Bun, Deno, Workers with `nodejs_compat`), taken with
 * `process.getBuiltinModule` rather than imported, so that the root entry, which reads a skills directory for
 * `createServer({ skills: '<dir>' })`, still imports no Node module; elsewhere, the directory is refused by name.
 */
function fileSystem(dir: string): FileSystem {
  const builtin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule;
  const fs = builtin?.('node:fs') as typeof import('node:fs') | undefined;
  const path = builtin?.('node:path') as typeof import('node:path') | undefined;
  if (!fs || !path) {
    throw refused(
      `cannot read the skills directory ${dir}: this runtime has no file system; give the skills as a list of ` +
        'definitions (docs/discovery.md)',
    );
  }
  return {
    readdirSync: fs.readdirSync,
    lstatSync: fs.lstatSync,
    readFileSync: fs.readFileSync,
    join: path.join,
  };
}

function readTree(
  fs: FileSystem,
  root: string,
  prefix: string,
  depth: number,
  budget: { files: number; bytes: number },
  out: SkillFile[],
  skill: string,
): void {
  const { readdirSync, lstatSync, readFileSync, join } = fs;
  const entries = readdirSync(join(root, prefix), { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  );
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (depth > 0) readTree(fs, root, path, depth - 1, budget, out, skill);
      continue;
    }
    // Links and devices are skipped: a skill serves its own regular files only.
    if (!entry.isFile()) continue;
    const full = join(root, path);
    const { size } = lstatSync(full);
    budget.files--;
    budget.bytes -= size;
    if (budget.files < 0) throw refused(`skill "${skill}" has more files than allowed`);
    if (budget.bytes < 0) throw refused(`skill "${skill}" is larger than allowed`);
    const bytes = new Uint8Array(readFileSync(full));
    // A file that grew since it was measured is counted as read.
    budget.bytes -= bytes.length - size;
    if (budget.bytes < 0) throw refused(`skill "${skill}" is larger than allowed`);
    out.push({ path, content: path === 'SKILL.md' ? new TextDecoder().decode(bytes) : bytes });
  }
}

function refused(message: string): McpLiteError {
  return new McpLiteError('invalid_params', `Invalid skill: ${message}`);
}
