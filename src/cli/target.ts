import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { bindingOf, splitCommand } from '../client/detect.js';
import { CliError } from './errors.js';

/** The endings of a module `mcplite serve` loads, which no one runs as a command by itself. */
const MODULE_FILE = /\.(?:[cm]?js|[cm]?ts|jsx|tsx)$/i;

/**
 * The error for a target that is a tools module rather than a server (`./tools.js`, `tools.ts`): spawning it
 * would fail with a bare EACCES or ENOENT, when what the user wants is `mcplite serve <module>`. A module file
 * that is itself an executable (a script with a shebang, on the PATH or made executable) is a server command
 * and passes, as does anything else the client can reach. Undefined when the target is fine.
 */
export function moduleTargetError(target: string): CliError | undefined {
  if (bindingOf(target) !== 'stdio') return undefined;
  let words: string[];
  try {
    words = splitCommand(target);
  } catch {
    return undefined;
  }
  const [command] = words;
  if (!command || !MODULE_FILE.test(command) || isExecutable(command)) return undefined;
  return new CliError(
    `${command} is a tools module, not a server: serve it with "mcplite serve ${command}" and give its URL ` +
      `(http://127.0.0.1:3000/mcp-lite/v1/), or run it over stdio with "mcplite serve --stdio ${command}" as the command line`,
    2,
  );
}

/** Whether spawning `command` would find an executable file (PATH searched for a bare name, as spawn does). */
function isExecutable(command: string): boolean {
  const candidates = command.includes('/')
    ? [command]
    : (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir || '.', command));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}
