import v8 from 'node:v8';
import { createServer } from './dist/src/index.js';
import { serve } from './dist/src/node.js';
const wait = { name: 'wait', description: 'w', inputSchema: { type: 'object', properties: {} }, longRunning: { estimatedMs: 60000 },
  handler: (_a, ctx) => new Promise((_r, rej) => { ctx.signal.addEventListener('abort', () => rej(ctx.signal.reason), { once: true }); }) };
const server = createServer({ tools: [wait], name: 'p', version: '0', maxPromisesPerCaller: 1e6, maxConcurrentWork: 1e6 });
const running = await serve(server, { port: 0 });
const url = running.url + '/mcp-lite/v1/calltools';
async function make(n) { for (let i = 0; i < n; i++) { const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'wait', arguments: {} } }) }); await r.text(); } }
await make(200);
gc(); gc();
v8.writeHeapSnapshot('/tmp/heap/a.heapsnapshot');
await make(2000);
gc(); gc();
v8.writeHeapSnapshot('/tmp/heap/b.heapsnapshot');
process.exit(0);
