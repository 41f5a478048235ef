/// <reference path="./js-yaml.d.ts" />
import { CORE_SCHEMA, load } from 'js-yaml';
import { McpLiteError } from '../errors.js';

/**
 * The YAML frontmatter of a `SKILL.md` (Agent Skills: a `---` line, YAML, a `---` line, then the body), parsed
 * with YAML 1.2's core schema so that the object is the file's frontmatter as JSON, nothing added (no dates
 * made from strings): the Skills extension serves it verbatim in each skill entry.
 */

/** Most bytes of frontmatter read (the rest of SKILL.md is the body, served as it is). */
const MAX_FRONTMATTER_CHARS = 64 * 1024;
const BLOCK = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The frontmatter of `text` as an object; `invalid_params` naming `where` when there is none or it is not YAML. */
export function parseFrontmatter(text: string, where: string): Record<string, unknown> {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const block = BLOCK.exec(body.slice(0, MAX_FRONTMATTER_CHARS + 16));
  if (!block) throw invalid(`${where} does not begin with a --- delimited YAML frontmatter block`);
  let parsed: unknown;
  try {
    parsed = load(block[1]!, { schema: CORE_SCHEMA, json: true });
  } catch (err) {
    throw invalid(`${where}: frontmatter is not YAML (${(err as Error).message.split('\n')[0]})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalid(`${where}: frontmatter is not a mapping`);
  return parsed as Record<string, unknown>;
}

function invalid(message: string): McpLiteError {
  return new McpLiteError('invalid_params', `Invalid skill: ${message}`);
}
