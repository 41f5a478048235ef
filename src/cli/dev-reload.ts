import { createRequire, register } from 'node:module';
import { sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RELOAD_PARAM } from './load-module.js';

/**
 * The module resolve hook of `mcplite dev`, as source: a module imported with `?mcplite-dev=<n>` passes the tag on
 * to every file it imports from the watched folder (never to node_modules), so a reload evaluates the edited
 * helpers afresh while dependencies stay loaded once. Inline (a data: URL) so that it needs no file of its own
 * beside the compiled CLI, and runs the same under tsx and from dist/.
 */
const HOOKS = `
let root = '';
export function initialize(data) { root = data.root; }
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const parent = context.parentURL;
  if (!parent || !resolved.url.startsWith(root) || resolved.url.includes('/node_modules/')) return resolved;
  const tag = new URL(parent).searchParams.get(${JSON.stringify(RELOAD_PARAM)});
  if (!tag) return resolved;
  const url = new URL(resolved.url);
  url.searchParams.set(${JSON.stringify(RELOAD_PARAM)}, tag);
  return { ...resolved, url: url.href };
}
`;

let registered = false;

/**
 * Installs the hook for the files under `dir` (once per process). Called after the first load, so that it runs
 * before a TypeScript loader registered by then (tsx) and sees the URLs that loader resolves.
 */
export function registerReloadHook(dir: string): void {
  if (registered) return;
  registered = true;
  const root = pathToFileURL(dir.endsWith('/') ? dir : `${dir}/`).href;
  register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, { data: { root } });
}

/**
 * Drops the CommonJS module cache's entries for the files under `dir` (never node_modules). A tool module that
 * runs as CommonJS (tsx loads `.ts` so in a package without `"type": "module"`) is cached by file name, whatever
 * its URL's query says, so a reload must forget it and the helpers it required.
 */
export function forgetCommonJs(dir: string): void {
  const cache = createRequire(import.meta.url).cache;
  const root = dir.endsWith(sep) ? dir : `${dir}${sep}`;
  for (const file of Object.keys(cache)) {
    if (file.startsWith(root) && !file.includes(`${sep}node_modules${sep}`)) delete cache[file];
  }
}
