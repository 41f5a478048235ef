// npm's `prepare` hook: builds dist/ when it is missing, which is the case when mcplite is installed from git
// (`npm install github:<owner>/mcplite`: npm installs the dev dependencies, runs this, then packs the result).
// A checkout that already has a build (CI builds explicitly, as do developers) is left alone, so `npm ci` stays
// fast there.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!existsSync(`${root}dist/src/index.js`)) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  // The rest of `npm run build`: the precompiled meta-schema validator, then the bundled entries.
  for (const step of ['scripts/build-meta-validator.mjs', 'scripts/bundle.mjs']) {
    execFileSync(process.execPath, [step], { cwd: root, stdio: 'inherit' });
  }
}
