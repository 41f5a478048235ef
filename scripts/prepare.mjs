// npm's `prepare` hook: builds dist/ when it is missing, which is the case when mcplite is installed from git
// (`npm install github:<owner>/mcplite`: npm installs the dev dependencies, runs this, then packs the result).
// A checkout that already has a build (CI builds explicitly, as do developers) is left alone, so `npm ci` stays
// fast there. The build is `npm run build` itself, so that its steps are written once, in package.json.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!existsSync(`${root}dist/src/index.js`)) {
  // The package manager running this hook (npm, or pnpm and yarn, which set it too) runs the build script.
  const manager = process.env.npm_execpath;
  const options = { cwd: root, stdio: 'inherit' };
  if (manager && /\.[cm]?js$/.test(manager))
    execFileSync(process.execPath, [manager, 'run', 'build'], options);
  else execFileSync(manager ?? 'npm', ['run', 'build'], { ...options, shell: process.platform === 'win32' });
}
