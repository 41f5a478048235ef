import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolServer } from '../core/server.js';
import type { ToolDefinition } from '../core/tool.js';
import type { ServerOptions } from '../create-server.js';
import { CliError } from './errors.js';
import { demoModulePath } from './locate.js';

/** What a tool module gives the CLI: its tools and the server options it asks for. */
export interface LoadedModule {
  /** Absolute path of the module. */
  path: string;
  /** The tool definitions found (see loadToolModule for where they are looked for). */
  tools: ToolDefinition[];
  /** Options merged from a `serverOptions` export and from a `{ tools, ...options }` default export. */
  serverOptions: Partial<ServerOptions>;
  /**
   * The server itself, when the module exports one (`export default createServer({ ... })`, or `export const
   * server`): served as it is, with its own auth, middleware and stores (`tools` is then empty).
   */
  server?: ToolServer;
}

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx']);
const JAVASCRIPT = new Set(['.js', '.mjs', '.cjs']);

const USAGE =
  'export a "tools" array, a default export (an array of tools, { tools, ...serverOptions }, or a server made ' +
  'with createServer({ tools, ... })), ' +
  'or tool definitions (objects with a string "name" and a "handler" function)';

/**
 * Imports a user's tool module (.js/.mjs/.cjs, or .ts when tsx is installed) and finds its tools, in this order:
 * a `tools` array export; a default export that is an array or `{ tools, ...serverOptions }`; else every export
 * that looks like a tool. A `serverOptions` export is merged in: its `name` and `version` are what the server
 * reports (without them, the CLI takes those of the module's nearest package.json, see `nearestPackage`). No
 * tools is a CliError (exit code 2). `generation` (from 1) loads the module afresh, for `mcplite dev`'s reloads
 * (see `moduleUrl`).
 */
export async function loadToolModule(spec: string, generation = 0): Promise<LoadedModule> {
  const path = resolve(spec);
  if (!existsSync(path)) throw new CliError(`Module not found: ${path}`);
  const ext = extname(path);
  if (TYPESCRIPT.has(ext)) await enableTypeScript();
  else if (!JAVASCRIPT.has(ext))
    throw new CliError(`Unsupported module type "${ext}": use .js, .mjs or .ts (${path})`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(moduleUrl(path, generation))) as Record<string, unknown>;
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    throw new CliError(`Could not load ${path}: ${message}${moduleSystemHint(path, message)}`, 2, {
      cause: err,
    });
  }
  // A server the module made is the server: taking only its tools would drop its auth and middleware.
  const server = [mod.default, mod.server].find(looksLikeServer);
  if (server) return { path, tools: [], serverOptions: {}, server };
  const { tools, serverOptions } = toolsOf(mod);
  if (tools.length === 0) throw new CliError(`No tools found in ${path}: ${USAGE}.`);
  return { path, tools, serverOptions };
}

// A module written with import/export in a CommonJS package (`npm init -y` writes `"type": "commonjs"`) that
// Node runs itself (a .js file, or a .ts file stripped by Node 22.18+ without tsx) is read as CommonJS and fails
// on its first `import`: say what makes it an ES module.
function moduleSystemHint(path: string, message: string): string {
  if (!/Cannot use import statement outside a module|Unexpected token 'export'/.test(message)) return '';
  const ext = extname(path);
  const renamed = ext === '.ts' ? '.mts' : '.mjs';
  const tsx = TYPESCRIPT.has(ext)
    ? ', install tsx (npm install --save-dev tsx), which runs it either way,'
    : '';
  return (
    `. It uses import/export in a CommonJS package: set "type": "module" in its package.json${tsx} ` +
    `or rename it to ${basename(path, ext)}${renamed}`
  );
}

/** Picks the tools and options out of a module namespace (see loadToolModule for the rules). */
export function toolsOf(mod: Record<string, unknown>): {
  tools: ToolDefinition[];
  serverOptions: Partial<ServerOptions>;
} {
  let serverOptions: Partial<ServerOptions> = isPlainObject(mod.serverOptions)
    ? { ...mod.serverOptions }
    : {};
  const fallback = mod.default;
  // First: a module that also exports its `tools` by name still means the options beside them in the default.
  if (isPlainObject(fallback) && Array.isArray(fallback.tools)) {
    const { tools, ...rest } = fallback;
    serverOptions = { ...serverOptions, ...(rest as Partial<ServerOptions>) };
    return { tools: tools as ToolDefinition[], serverOptions };
  }
  if (Array.isArray(mod.tools)) return { tools: mod.tools, serverOptions };
  if (Array.isArray(fallback)) return { tools: fallback, serverOptions };
  // A tool exported both by name and as the default is one tool, not two.
  const tools = [...new Set(Object.values(mod).filter(looksLikeTool))];
  return { tools, serverOptions };
}

/**
 * Whether a value is a tool server (`createServer`'s result). Told by its shape, not `instanceof`: the module may
 * import mcplite from a copy of its own (its node_modules) rather than the CLI's.
 */
export function looksLikeServer(value: unknown): value is ToolServer {
  if (!isPlainObject(value)) return false;
  const catalog = value.catalog as { names?: unknown } | undefined;
  return (
    typeof value.call === 'function' &&
    typeof value.name === 'string' &&
    typeof catalog?.names === 'function' &&
    typeof value.pipeline === 'object'
  );
}

/** A tool definition has at least a string name and a handler function. */
export function looksLikeTool(value: unknown): value is ToolDefinition {
  return isPlainObject(value) && typeof value.name === 'string' && typeof value.handler === 'function';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The URL a module is imported from. ESM caches a module by URL for the life of the process, so a reload imports
 * `?mcplite-dev=<generation>`; the dev loop's resolve hook (dev-reload.ts) gives the module's own imports the
 * same tag, so edited helpers load afresh too.
 */
export function moduleUrl(path: string, generation: number): string {
  const url = pathToFileURL(path);
  if (generation > 0) url.searchParams.set(RELOAD_PARAM, String(generation));
  return url.href;
}

/** The query parameter that tags a reload's module URLs. */
export const RELOAD_PARAM = 'mcplite-dev';

let typeScriptEnabled = false;

// TypeScript modules run without a build step: through tsx when the project has it (it maps `./x.js` imports to
// `x.ts`, as tsc does), else through Node's own type stripping (on by default from Node 22.18, behind
// --experimental-strip-types from 22.6; imports must then name the `.ts` files). Neither: one clear message
// instead of node's "unknown file extension". Both of tsx's hooks: in a CommonJS package (`npm init -y`'s
// default) tsx's ESM hook hands a `.ts` module to Node's require(), which without tsx's CommonJS hook reads the
// file as an ES module inside a require() ("Cannot require() ES Module … in a cycle" on Node 20, "module not
// been linked" on 22).
async function enableTypeScript(): Promise<void> {
  if (typeScriptEnabled) return;
  let api: Array<{ register: () => unknown }> | undefined;
  try {
    api = await Promise.all([import('tsx/cjs/api'), import('tsx/esm/api')]);
  } catch (err) {
    if (!nodeStripsTypes())
      throw new CliError(
        'Loading a .ts module needs tsx (npm install --save-dev tsx) or Node 22.18+ (which strips types ' +
          'itself; 22.6+ with --experimental-strip-types), or compile it to .js first',
        2,
        { cause: err },
      );
  }
  for (const hooks of api ?? []) hooks.register();
  typeScriptEnabled = true;
}

/** Whether this Node runs TypeScript itself (`process.features.typescript`: "strip" or "transform"). */
function nodeStripsTypes(): boolean {
  const typescript = (process.features as { typescript?: unknown }).typescript;
  return typescript === 'strip' || typescript === 'transform';
}

/**
 * The name and version of the package a module belongs to, and the whole package.json: the nearest one above it
 * that has a name (a bare `{ "type": "module" }` marker file is skipped). Undefined when there is none, or it
 * cannot be read.
 */
export function nearestPackage(
  modulePath: string,
): { name: string; version: string; json: Record<string, unknown> } | undefined {
  let dir = dirname(modulePath);
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
        if (typeof pkg.name === 'string' && pkg.name.length > 0) {
          return {
            name: pkg.name,
            version: typeof pkg.version === 'string' ? pkg.version : '0.0.0',
            json: pkg,
          };
        }
      } catch {
        return undefined;
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The module a command serves or works for: the given path, or the bundled demo with `--demo` (not both).
 * `usage` is the example named when neither is given.
 */
export function moduleSpec(module: string | undefined, demo: boolean | undefined, usage: string): string {
  if (demo && module) throw new CliError('Give either a module or --demo, not both');
  const spec = demo ? demoModulePath() : module;
  if (!spec) throw new CliError(`Nothing to ${usage} or --demo`);
  return spec;
}

/**
 * `loadToolModule`, with the server's name and version filled in: a module that names itself (serverOptions)
 * wins, else its nearest package.json does, so that clients see a real version.
 */
export async function loadServedModule(spec: string, generation = 0): Promise<LoadedModule> {
  const loaded = await loadToolModule(spec, generation);
  if (loaded.server) return loaded;
  const { name, version } = loaded.serverOptions;
  const own = name && version ? undefined : nearestPackage(loaded.path);
  return own
    ? { ...loaded, serverOptions: { name: own.name, version: own.version, ...loaded.serverOptions } }
    : loaded;
}
