import { McpLiteError } from '../../core/errors.js';
import type { ToolServer } from '../../core/server.js';
import { SKILLS_EXTENSION, type SkillCatalog } from '../../core/skills/skills.js';
import type { Exchange } from './exchange.js';

/**
 * The Skills extension's MCP methods (`io.modelcontextprotocol/skills`, docs/discovery.md): `skills/list` (paged,
 * an entry never split), `skills/get` (one entry by its SKILL.md URI; `-32602` for one not served) and
 * `resources/directory/read` (a skill directory's direct children; `-32602` for what is not a directory). Each
 * walks the server's chain (auth, visibility, the user's middleware) as the other operations do. The skill files
 * themselves are resources, read with `resources/read`.
 */

/** The methods this file answers. */
export const SKILL_METHODS: ReadonlySet<string> = new Set([
  'skills/list',
  'skills/get',
  'resources/directory/read',
]);

/** One page of `items` under `key` (the engine's paging). */
export type Pager = (key: string, items: readonly unknown[], cursor: unknown) => Record<string, unknown>;

/** The capability entry of a server with skills (directory reads supported), else undefined. */
export function skillsCapability(server: ToolServer): Record<string, unknown> | undefined {
  return server.skills ? { [SKILLS_EXTENSION]: { directoryRead: true } } : undefined;
}

/** Answers one of `SKILL_METHODS`; `method_not_found` on a server without skills. */
export async function skillMethod(
  server: ToolServer,
  method: string,
  params: Record<string, unknown>,
  x: Exchange,
  page: Pager,
): Promise<Record<string, unknown>> {
  const skills = server.skills;
  if (!skills) throw new McpLiteError('method_not_found', `Method not found: ${method}`, { method });
  switch (method) {
    case 'skills/list':
      return page(
        'skills',
        await server.operate('skills/list', undefined, undefined, x, () => skills.entries()),
        params.cursor,
      );
    case 'skills/get': {
      const uri = uriOf(params);
      return { skill: await server.operate('skills/get', uri, undefined, x, () => entryOf(skills, uri)) };
    }
    default: {
      const uri = uriOf(params);
      const children = await server.operate('resources/directory/read', uri, undefined, x, () => {
        const found = skills.directory(uri);
        if (!found) throw new McpLiteError('invalid_params', `Invalid params: not a directory: ${echo(uri)}`);
        return found;
      });
      return page('resources', children, params.cursor);
    }
  }
}

function entryOf(skills: SkillCatalog, uri: string) {
  const entry = skills.get(uri);
  if (!entry) throw new McpLiteError('invalid_params', `Invalid params: no skill at ${echo(uri)}`);
  return entry;
}

function uriOf(params: Record<string, unknown>): string {
  if (typeof params.uri !== 'string' || params.uri.length > 2048)
    throw new McpLiteError(
      'invalid_params',
      'Invalid params: "uri" must be a string of at most 2048 characters',
    );
  return params.uri;
}

/** A URI named back, cut short. */
function echo(uri: string): string {
  return uri.length > 200 ? `${uri.slice(0, 200)}…` : uri;
}
