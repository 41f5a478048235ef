import type { ToolServer } from './core/server.js';
import { createServer as createAnywhere, type ServerOptions } from './create-server.js';
import { loadSkillsSync } from './load-skills.js';

/**
 * `createServer` of `mcplite/node`: the root entry's, which also takes `skills` as a directory (a path, relative
 * to the working directory) and reads it once, here, with `loadSkills`'s bounds; a directory that cannot be read
 * or holds an invalid skill is refused by name (`invalid_params`). Everything else is the root `createServer`.
 */
export function createServer(options: ServerOptions): ToolServer {
  const { skills } = options;
  return createAnywhere(
    typeof skills === 'string' ? { ...options, skills: loadSkillsSync(skills) } : options,
  );
}
