// Adds lockfile entries for optional platform packages that this machine's registry does not serve.
// Why: npm 11 drops an optional dependency it cannot resolve from the lockfile, and then `npm ci` refuses that
// same lockfile as out of sync (npm/cli#8320). An entry with `os`/`cpu` set is skipped by `npm ci` on every
// other platform without being fetched, so it needs no integrity. Run after `npm install`; a lockfile other than
// the root's is named as the argument (`node scripts/lock-platforms.mjs test/runtimes/package-lock.json`).
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const PLATFORM =
  /(android|darwin|linux|win32|freebsd|openbsd|netbsd|sunos|aix)-(arm64|x64|ia32|arm|ppc64|s390x|riscv64|loong64)(-musl)?(?:-gnu|-msvc)?$/;
const path = process.argv[2]
  ? pathToFileURL(process.argv[2])
  : new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
let added = 0;
for (const entry of Object.values(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const at = `node_modules/${dep}`;
    const match = PLATFORM.exec(dep);
    if (lock.packages[at] || !match) continue;
    const [, os, cpu, musl] = match;
    lock.packages[at] = {
      version,
      cpu: [cpu],
      dev: entry.dev,
      ...(os === 'linux' ? { libc: [musl ? 'musl' : 'glibc'] } : {}),
      optional: true,
      os: [os],
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-platforms: added ${added} entr${added === 1 ? 'y' : 'ies'}`);
