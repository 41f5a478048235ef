import { toBase64 } from '../base64.js';
import { McpLiteError } from '../errors.js';
import type { ResourceDefinition } from '../resources.js';
import { sha256 } from '../sha256.js';
import { parseFrontmatter } from './frontmatter.js';

/**
 * Agent Skills served over MCP (the `io.modelcontextprotocol/skills` extension, SEP-2640; docs/discovery.md): each
 * skill is a directory with a `SKILL.md` (YAML frontmatter, then instructions) and any other files, every file a
 * `skill://<name>/<path>` resource. This catalog holds them whole, checked and bounded when the server is made:
 * the entries `skills/list` and `skills/get` answer (the frontmatter verbatim, each file's sha256 digest and
 * size), the resources `resources/list` and `resources/read` serve, and the children `resources/directory/read`
 * lists. Protocol-neutral; the MCP methods are `bindings/mcp/skills.ts`, a directory is read by `loadSkills`.
 */

/** The extension's identifier, under `capabilities.extensions`. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
/** The media type of a directory resource. */
export const DIRECTORY_TYPE = 'inode/directory';
/** Most files in one skill (the extension's limit). */
export const MAX_FILES_PER_SKILL = 512;
/** Most bytes in one skill, summed over its files (the extension's limit). */
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;
/** Most skills one server serves. */
export const MAX_SKILLS = 1000;

/** One file of a skill. */
export interface SkillFile {
  /** Its path in the skill directory, `/`-separated (`SKILL.md`, `references/FORMS.md`). */
  path: string;
  /** Its contents: text (UTF-8) or bytes. */
  content: string | Uint8Array;
  /** Its media type. Default: from its extension (`text/markdown` for `.md`, else `text/plain` or bytes). */
  mimeType?: string;
}

/** A skill as given to `createServer({ skills })`: its files, `SKILL.md` among them. */
export interface SkillDefinition {
  /** Its files; `SKILL.md` (whose frontmatter `name` names the skill) is required. */
  files: readonly SkillFile[];
}

/** One file's manifest entry. */
export interface SkillResourceEntry {
  uri: string;
  /** `sha256:` and the 64 lowercase hex digits of the file's bytes. */
  digest: string;
  /** Its length in bytes. */
  size: number;
}

/** A skill entry of `skills/list` and `skills/get`. */
export interface SkillEntry {
  /** `skill://<name>/SKILL.md`. */
  uri: string;
  /** SKILL.md's frontmatter, as the file has it. */
  frontmatter: Record<string, unknown>;
  /** Every file of the skill, SKILL.md first. */
  resources: SkillResourceEntry[];
}

/** A child of a directory, as `resources/directory/read` lists it. */
export interface DirectoryChild {
  uri: string;
  name: string;
  mimeType: string;
  size?: number;
}

interface StoredFile {
  uri: string;
  path: string;
  bytes: Uint8Array;
  text: string | undefined;
  mimeType: string;
}

interface StoredSkill {
  name: string;
  entry: SkillEntry;
  files: StoredFile[];
}

const NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;
const SEGMENT = /^[A-Za-z0-9._~!$&'()*+,;=@ -]{1,255}$/;
const encoder = new TextEncoder();

/** The checked, bounded skills of a server. */
export class SkillCatalog {
  private readonly skills = new Map<string, StoredSkill>();

  constructor(definitions: readonly SkillDefinition[]) {
    if (definitions.length > MAX_SKILLS) throw invalid(`more than ${MAX_SKILLS} skills`);
    for (const definition of definitions) {
      const skill = stored(definition);
      if (this.skills.has(skill.name)) throw invalid(`two skills are named "${skill.name}"`);
      this.skills.set(skill.name, skill);
    }
  }

  /** How many skills it holds. */
  get size(): number {
    return this.skills.size;
  }

  /** Every skill's entry, in the order given. */
  entries(): SkillEntry[] {
    return [...this.skills.values()].map((s) => s.entry);
  }

  /** The entry of the skill whose SKILL.md is `uri`, if served. */
  get(uri: string): SkillEntry | undefined {
    const name = skillNameOf(uri);
    const skill = name === undefined ? undefined : this.skills.get(name);
    return skill && skill.entry.uri === uri ? skill.entry : undefined;
  }

  /**
   * The direct children of the directory `uri` (`skill://<name>` or `skill://<name>/<dir>`, a trailing slash
   * allowed), subdirectories as `inode/directory`; undefined when `uri` is not a served directory.
   */
  directory(uri: string): DirectoryChild[] | undefined {
    const m = /^skill:\/\/([^/]+)((?:\/[^/]+)*)\/?$/.exec(uri);
    const skill = m ? this.skills.get(m[1]!) : undefined;
    if (!m || !skill) return undefined;
    const prefix = m[2] ? `${m[2].slice(1)}/` : '';
    const children = new Map<string, DirectoryChild>();
    for (const file of skill.files) {
      if (!file.path.startsWith(prefix)) continue;
      const rest = file.path.slice(prefix.length);
      const slash = rest.indexOf('/');
      const child = slash < 0 ? rest : rest.slice(0, slash);
      if (children.has(child)) continue;
      const base = `skill://${skill.name}/${prefix}${child}`;
      children.set(
        child,
        slash < 0
          ? { uri: base, name: child, mimeType: file.mimeType, size: file.bytes.length }
          : { uri: base, name: child, mimeType: DIRECTORY_TYPE },
      );
    }
    // A prefix no file has is no directory (a file's own URI lands here too).
    return children.size === 0 ? undefined : [...children.values()];
  }

  /** Every file as a resource (SKILL.md named and described by its frontmatter), for the server's catalog. */
  resources(): ResourceDefinition[] {
    const out: ResourceDefinition[] = [];
    for (const skill of this.skills.values()) {
      const { name, description } = skill.entry.frontmatter as { name: string; description: string };
      for (const file of skill.files) {
        const contents =
          file.text !== undefined
            ? { uri: file.uri, mimeType: file.mimeType, text: file.text }
            : { uri: file.uri, mimeType: file.mimeType, blob: toBase64(file.bytes) };
        out.push({
          uri: file.uri,
          ...(file.path === 'SKILL.md' ? { name, description } : { name: `${name}/${file.path}` }),
          mimeType: file.mimeType,
          size: file.bytes.length,
          read: () => contents,
        });
      }
    }
    return out;
  }
}

/** The skill name in a `skill://<name>/SKILL.md` URI. */
function skillNameOf(uri: string): string | undefined {
  const m = /^skill:\/\/([^/]+)\/SKILL\.md$/.exec(uri);
  return m?.[1];
}

/** One definition checked: a SKILL.md with name and description, the name by the rules, files within bounds. */
function stored(definition: SkillDefinition): StoredSkill {
  if (definition.files.length > MAX_FILES_PER_SKILL)
    throw invalid(`a skill has more than ${MAX_FILES_PER_SKILL} files`);
  const manifest = definition.files.find((f) => f.path === 'SKILL.md');
  if (!manifest) throw invalid('a skill has no SKILL.md');
  const manifestText = typeof manifest.content === 'string' ? manifest.content : decode(manifest.content);
  const frontmatter = parseFrontmatter(manifestText ?? '', 'SKILL.md');
  const { name, description } = frontmatter;
  if (typeof name !== 'string' || !NAME.test(name))
    throw invalid('SKILL.md frontmatter "name" must be 1-64 lowercase letters, digits and single hyphens');
  if (typeof description !== 'string' || description.length === 0)
    throw invalid(`SKILL.md of "${name}" has no frontmatter "description"`);
  const seen = new Set<string>();
  let total = 0;
  const files: StoredFile[] = [];
  for (const file of definition.files) {
    const segments = file.path.split('/');
    if (segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..'))
      throw invalid(`"${name}" has a file at a path that is not a plain relative path`);
    if (seen.has(file.path)) throw invalid(`"${name}" lists ${file.path} twice`);
    seen.add(file.path);
    const bytes = typeof file.content === 'string' ? encoder.encode(file.content) : file.content;
    total += bytes.length;
    if (total > MAX_SKILL_BYTES) throw invalid(`"${name}" is larger than ${MAX_SKILL_BYTES} bytes`);
    const mimeType = file.mimeType ?? mimeOf(file.path, bytes);
    const text =
      typeof file.content === 'string' ? file.content : isText(mimeType) ? decode(bytes) : undefined;
    files.push({ uri: `skill://${name}/${encodeURI(file.path)}`, path: file.path, bytes, text, mimeType });
  }
  files.sort((a, b) => (a.path === 'SKILL.md' ? -1 : b.path === 'SKILL.md' ? 1 : a.path < b.path ? -1 : 1));
  const resources = files.map((f) => ({
    uri: f.uri,
    digest: `sha256:${hex(sha256(f.bytes))}`,
    size: f.bytes.length,
  }));
  return { name, files, entry: { uri: `skill://${name}/SKILL.md`, frontmatter, resources } };
}

const TYPES: Record<string, string> = {
  md: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  py: 'text/x-python',
  js: 'text/javascript',
  ts: 'text/typescript',
  sh: 'text/x-shellscript',
  html: 'text/html',
  csv: 'text/csv',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
};

/** A media type from the file's extension, else text when its bytes are UTF-8, else octets. */
function mimeOf(path: string, bytes: Uint8Array): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  const known = ext ? TYPES[ext] : undefined;
  if (known) return known;
  return decode(bytes) !== undefined ? 'text/plain' : 'application/octet-stream';
}

function isText(mimeType: string): boolean {
  return mimeType.startsWith('text/') || /json|yaml|xml|svg/.test(mimeType);
}

/** UTF-8 text of `bytes`, or undefined when they are not UTF-8. */
function decode(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

function invalid(message: string): McpLiteError {
  return new McpLiteError('invalid_params', `Invalid skill: ${message}`);
}
