// Run by `npm run build` after tsc and the meta-schema validator: bundles the package's entry points (every
// `exports` target and the CLI) with esbuild and writes each over tsc's file at the same path, with the code
// they share in dist/src/chunks/. Node spends most of a cold start resolving, reading and linking modules one
// file at a time: `serve` loaded about 200 of them, and loads a few dozen chunks now. The entries share one
// copy of mcplite, so a tool module that imports `mcplite` and the CLI that serves it see the same classes.
// Lazy imports stay lazy (each is a chunk of its own). ajv and its helpers are bundled in (about 90 CommonJS
// files that every server loads); every other package stays a package, so that an optional peer is the user's
// own copy and loads only where it is used.
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
/** ajv, its formats and ajv's runtime dependencies: plain JavaScript that needs no Node built-in. */
const BUNDLED_PACKAGES = new Set([
  'ajv',
  'ajv-formats',
  'fast-deep-equal',
  'fast-uri',
  'json-schema-traverse',
]);

const targets = new Set([pkg.bin.mcplite.replace(/^\.\//, '')]);
for (const entry of Object.values(pkg.exports)) {
  if (typeof entry === 'object' && entry.import.endsWith('.js'))
    targets.add(entry.import.replace(/^\.\//, ''));
}

/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`). */
const packageOf = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

const staging = `${root}dist/.bundle/`;
rmSync(staging, { recursive: true, force: true });
const result = await build({
  entryPoints: [...targets].map((target) => `${root}${target}`),
  outbase: `${root}dist/src`,
  outdir: staging,
  bundle: true,
  splitting: true,
  format: 'esm',
  // Neutral: the portable entries run on Workers, Deno, Bun and in browsers; Node's modules stay imports.
  platform: 'neutral',
  target: 'es2022',
  mainFields: ['module', 'main'],
  conditions: ['import', 'default'],
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: true,
  logLevel: 'warning',
  metafile: true,
  plugins: [
    {
      name: 'packages-stay-packages',
      setup(builder) {
        builder.onResolve({ filter: /^[^./]/ }, (args) =>
          BUNDLED_PACKAGES.has(packageOf(args.path)) ? undefined : { path: args.path, external: true },
        );
      },
    },
  ],
});
// Chunks of an earlier build have other hashes: cleared, so that only this build's ship.
rmSync(`${root}dist/src/chunks`, { recursive: true, force: true });
cpSync(staging, `${root}dist/src`, { recursive: true });
rmSync(staging, { recursive: true, force: true });
const files = Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js'));
console.log(`bundle: ${targets.size} entries, ${files.length - targets.size} chunks`);
