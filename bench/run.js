// `npm run bench`: runs every bench/sections/*.js in name order, then prints a summary.
// A section exports `default async function run()`, prints its own results and may return
// `{ ok?: boolean, summary?: string[] }` for the summary. Pass section names to run only those: `node bench/run.js http`.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './support.js';

const dir = join(ROOT, 'bench/sections');
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.js'))
  .filter((f) => only.length === 0 || only.includes(f.slice(0, -3)))
  .sort();

console.log(`# mcplite benchmark (node ${process.version}, ${process.platform}/${process.arch})`);
const results = [];
for (const file of files) {
  const name = file.slice(0, -3);
  const started = performance.now();
  try {
    const mod = await import(pathToFileURL(join(dir, file)).href);
    const r = (await mod.default()) ?? {};
    results.push({
      name,
      ok: r.ok !== false,
      summary: r.summary ?? [],
      seconds: (performance.now() - started) / 1000,
    });
  } catch (err) {
    console.error(`\nsection ${name} failed:`, err);
    results.push({ name, ok: false, summary: [`failed: ${err?.message ?? err}`], seconds: 0 });
  }
}

console.log('\n## Summary');
for (const r of results) {
  console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name}${r.seconds ? ` (${r.seconds.toFixed(0)} s)` : ''}`);
  for (const line of r.summary) console.log(`     ${line}`);
}
// A missed target or a failed section fails the command, so CI (or a person) cannot overlook it.
if (results.some((r) => !r.ok)) process.exitCode = 1;
