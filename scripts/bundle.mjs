// Run by `npm run build` after tsc and the meta-schema validator: bundles the package's entry points (every
// `exports` target and the CLI) with rolldown and writes each over tsc's file at the same path, with the code
// they share in dist/src/chunks/. Node's module loader costs about a millisecond a file at start: `serve` loaded
// about 200 files from tsc's per-file build, and 81 chunks when every set of entries that reaches a module made a
// chunk of its own (esbuild's splitting). The chunks are named here instead (`chunkGroups`), so that the root entry
// loads a few large files. The entries share one copy of mcplite, so a tool module that imports `mcplite` and the
// CLI that serves it see the same classes. Lazy imports stay lazy (each is a chunk of its own). ajv and its helpers
// are bundled in (about 90 CommonJS files that every server loads); every other package stays a package, so that
// an optional peer is the user's own copy and loads only where it is used.
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = `${root}dist/src/`;
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
/** ajv, its formats and ajv's runtime dependencies: plain JavaScript that needs no Node built-in. */
const BUNDLED_PACKAGES = new Set([
  'ajv',
  'ajv-formats',
  'fast-deep-equal',
  'fast-uri',
  'json-schema-traverse',
]);
/** The server's entry: what it reaches statically is what every server loads at start. */
const SERVER_ENTRY = 'index.js';
/**
 * The entries that run without a server (a client, a Worker's fetch handler, the inspector): each loads only the
 * part of the server's code it reaches itself, not the server's whole chunk.
 */
const CLIENT_SIDE_ENTRIES = [
  'adapters/fetch.js',
  'client/index.js',
  'client/ai.js',
  'client/langchain.js',
  'inspector/index.js',
];
/**
 * Parts loaded together, each as one chunk (rather than a chunk for every set of importers sharing a module,
 * because Node's loader costs about a millisecond a file): what the CLI entry reaches statically beyond the server
 * entry, what the `serve` command reaches beyond that (every stdio server is started through it), and the stdio
 * bindings with their framing, which `serve --stdio` and `mcplite/node` load. Taken in this order. `apart`: the
 * entries stay in chunks of their own, because the CLI's top-level await imports the command's file, and an
 * entry inside a chunk that the command imports would wait on itself.
 */
const LOADED_TOGETHER = [
  { name: 'cli', entries: ['cli/main.js'], apart: true },
  { name: 'cli-serve', entries: ['cli/serve-command.js'], apart: true },
  {
    name: 'stdio',
    entries: ['bindings/mcp/stdio/index.js', 'bindings/mcp-lite/stdio/index.js'],
    apart: false,
  },
];

const targets = new Set([pkg.bin.mcplite.replace(/^\.\//, '')]);
for (const entry of Object.values(pkg.exports)) {
  if (typeof entry === 'object' && entry.import.endsWith('.js'))
    targets.add(entry.import.replace(/^\.\//, ''));
}
// A name here that package.json no longer exports would leave its group empty, and the server chunk whole for it.
for (const entry of [SERVER_ENTRY, ...CLIENT_SIDE_ENTRIES]) {
  if (!targets.has(`dist/src/${entry}`))
    throw new Error(`scripts/bundle.mjs groups the chunks by ${entry}, which package.json does not export`);
}
for (const entry of LOADED_TOGETHER.flatMap(({ entries }) => entries)) {
  if (!existsSync(`${src}${entry}`))
    throw new Error(`scripts/bundle.mjs groups chunks by ${entry}, which tsc did not write`);
}
/** Each target by its path under dist/src without `.js`: the name rolldown writes it under. */
const input = Object.fromEntries(
  [...targets].map((target) => [target.replace(/^dist\/src\//, '').replace(/\.js$/, ''), `${root}${target}`]),
);

/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`). */
const packageOf = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * The modules `entry` reaches through static imports (the ones loaded with it), from the module graph:
 * `getModuleInfo` is a plugin context's.
 */
function staticClosure(getModuleInfo, entry) {
  const seen = new Set();
  const todo = [entry];
  while (todo.length > 0) {
    const id = todo.pop();
    if (seen.has(id)) continue;
    const info = getModuleInfo(id);
    if (!info || info.isExternal) continue;
    seen.add(id);
    todo.push(...info.importedIds);
  }
  return seen;
}

/**
 * The named chunks. For each module the server entry reaches: the set of client-side entries that reach it too,
 * found once the module graph is known (`buildEnd`). The modules of one set make one chunk: those of the empty set
 * the server's own. rolldown takes its options before it builds, so every set has its group from the start (a
 * group for a set no module has stays empty). A group that takes a module takes the modules it imports too
 * (rolldown's default), so the groups of larger sets go first: what a module imports, its entries reach as well.
 */
const reachedBy = new Map();
/**
 * The modules of `LOADED_TOGETHER` that the server entry does not reach, by the name of the chunk that takes
 * them. Their groups go after the server's, whose modules they import, and in `LOADED_TOGETHER`'s order.
 */
const togetherIn = new Map();
const chunkGroups = [];
for (let set = 0; set < 2 ** CLIENT_SIDE_ENTRIES.length; set++) {
  let size = 0;
  for (let bits = set; bits > 0; bits >>= 1) size += bits & 1;
  chunkGroups.push({
    name: set === 0 ? 'server' : 'shared',
    test: (id) => reachedBy.get(id) === set,
    priority: 1 + LOADED_TOGETHER.length + size,
  });
}
LOADED_TOGETHER.forEach(({ name }, i) => {
  chunkGroups.push({ name, test: (id) => togetherIn.get(id) === name, priority: LOADED_TOGETHER.length - i });
});
const namedChunks = {
  name: 'named-chunks',
  buildEnd() {
    const getModuleInfo = (id) => this.getModuleInfo(id);
    const clients = CLIENT_SIDE_ENTRIES.map((entry) => staticClosure(getModuleInfo, `${src}${entry}`));
    for (const id of staticClosure(getModuleInfo, `${src}${SERVER_ENTRY}`)) {
      reachedBy.set(
        id,
        clients.reduce((set, closure, i) => (closure.has(id) ? set | (1 << i) : set), 0),
      );
    }
    const apart = new Set(
      LOADED_TOGETHER.flatMap((part) => (part.apart ? part.entries.map((entry) => `${src}${entry}`) : [])),
    );
    for (const { name, entries } of LOADED_TOGETHER) {
      for (const id of entries.flatMap((entry) => [...staticClosure(getModuleInfo, `${src}${entry}`)])) {
        if (!reachedBy.has(id) && !togetherIn.has(id) && !apart.has(id)) togetherIn.set(id, name);
      }
    }
  },
};

const staging = `${root}dist/.bundle/`;
rmSync(staging, { recursive: true, force: true });
const bundle = await rolldown({
  input,
  // Neutral: the portable entries run on Workers, Deno, Bun and in browsers; Node's modules stay imports.
  platform: 'neutral',
  external: (id) => /^[^./]/.test(id) && !BUNDLED_PACKAGES.has(packageOf(id)),
  resolve: { mainFields: ['module', 'main'], conditionNames: ['import', 'default'] },
  logLevel: 'warn',
  onLog(level, log, handler) {
    // A module both imported and imported lazily stays where the static import puts it: expected, not a fault.
    if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT') return;
    handler(level, log);
  },
  plugins: [namedChunks],
});
const { output } = await bundle.write({
  dir: staging,
  format: 'es',
  chunkFileNames: 'chunks/[name]-[hash].js',
  sourcemap: true,
  codeSplitting: { groups: chunkGroups },
});
await bundle.close();
// Chunks of an earlier build have other hashes: cleared, so that only this build's ship.
rmSync(`${src}chunks`, { recursive: true, force: true });
cpSync(staging, src, { recursive: true });
rmSync(staging, { recursive: true, force: true });
const chunks = output.filter((file) => file.type === 'chunk');
console.log(`bundle: ${targets.size} entries, ${chunks.length - targets.size} chunks`);
