import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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

// From source the page sits in ./static; from the build (dist/src/inspector) it is the copy the package ships at
// src/inspector/static, three levels up (tsc compiles TypeScript only, and the page is plain JS, HTML and CSS).
const CANDIDATES = ['./static/', '../../../src/inspector/static/'];

let cached: ReadonlyMap<string, Asset> | undefined;

/** The page's files, read from disk on first use and kept (they are a few tens of kilobytes). */
export function pageAssets(): ReadonlyMap<string, Asset> {
  if (cached) return cached;
  const dir = CANDIDATES.map((c) => fileURLToPath(new URL(c, import.meta.url))).find((d) =>
    existsSync(`${d}index.html`),
  );
  if (!dir) throw new Error('The inspector page (src/inspector/static) is missing from this installation');
  cached = new Map(
    Object.entries(ASSETS).map(([name, type]) => [
      name,
      { type, body: readFileSync(`${dir}${name}`, 'utf8') },
    ]),
  );
  return cached;
}
