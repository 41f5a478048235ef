import { existsSync, readFileSync } from 'node:fs';
import { packageFile } from '../package-files.js';

/** The page's files, by the name the page asks for, with their content types. */
const ASSETS: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'inspector.css': 'text/css; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'api.js': 'text/javascript; charset=utf-8',
  'form.js': 'text/javascript; charset=utf-8',
  'render.js': 'text/javascript; charset=utf-8',
  'promise.js': 'text/javascript; charset=utf-8',
  'prompts.js': 'text/javascript; charset=utf-8',
  'apps.js': 'text/javascript; charset=utf-8',
};

/** One file of the page, read once. */
export interface Asset {
  type: string;
  body: string;
}

let cached: ReadonlyMap<string, Asset> | undefined;

/** The page's files, read from disk on first use and kept (they are a few tens of kilobytes). */
export function pageAssets(): ReadonlyMap<string, Asset> {
  if (cached) return cached;
  // tsc compiles TypeScript only and the page is plain JS, HTML and CSS: every layout serves the copy that ships
  // at src/inspector/static, from the package's root.
  const dir = packageFile('src/inspector/static/');
  if (!existsSync(`${dir}index.html`)) {
    throw new Error('The inspector page (src/inspector/static) is missing from this installation');
  }
  cached = new Map(
    Object.entries(ASSETS).map(([name, type]) => [
      name,
      { type, body: readFileSync(`${dir}${name}`, 'utf8') },
    ]),
  );
  return cached;
}
