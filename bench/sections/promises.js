// Memory of outstanding promises: 10,000 calls of a long-running tool that never finishes by itself, each
// answered at once with a promise token, then all cancelled. The server runs as its own process with --expose-gc
// (bench/promises-server.js), so that its RSS and heap are measured alone and after a full collection.
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { fmt, mib, ROOT, startChild, stopChild } from '../support.js';

const PROMISES = Number(process.env.BENCH_PROMISES ?? 10_000);
/** Calls in flight at once: enough to be quick, few enough not to measure the client's queue. */
const CONCURRENCY = 50;
/** Calls made (and cancelled) before the first measurement, so that JIT code, pools and caches exist already. */
const WARMUP = 200;

export default async function run() {
  console.log(`\n## Promises: ${fmt(PROMISES)} outstanding promises of a long-running tool`);
  const { child, match } = await startChild([join(ROOT, 'bench/promises-server.js')], /listening on (\S+)/, {
    nodeOptions: ['--expose-gc'],
    ipc: true,
  });
  const rpc = new URL('rpc', match).href;
  let id = 0;
  const call = async (name, args) => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    const { status, text } = await post(rpc, body);
    const reply = JSON.parse(text);
    if (status !== 200 || reply.error) throw new Error(`${name} failed (HTTP ${status}): ${text}`);
    return reply.result;
  };
  const promise = async () => {
    const result = await call('wait', {});
    const token = result._meta?.promise_token;
    if (result._meta?.response_type !== 'promise' || typeof token !== 'string') {
      throw new Error(`expected a promise, got ${JSON.stringify(result)}`);
    }
    return token;
  };
  const cancelAll = async (tokens) => {
    const results = await pool(tokens, (token) => call('cancel', { promise: token }));
    const cancelled = results.filter((r) => r.content?.cancelled === true).length;
    if (cancelled !== tokens.length) throw new Error(`cancelled ${cancelled} of ${tokens.length} promises`);
  };

  let result;
  try {
    await cancelAll(await pool(Array.from({ length: WARMUP }), promise));
    const before = await measure(child);
    if (!before.gc) console.log('note: gc() is not exposed; numbers include garbage');
    const started = performance.now();
    const tokens = await pool(Array.from({ length: PROMISES }), promise);
    const seconds = (performance.now() - started) / 1000;
    const held = await measure(child);
    await cancelAll(tokens);
    // Cancelling aborts the handlers; their settlements are stored on the next turns.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = await measure(child);

    const perPromise = (a, b, key) => (b[key] - a[key]) / PROMISES;
    console.log(
      `made in ${seconds.toFixed(1)} s (${fmt(PROMISES / seconds)} promises/s), ${held.inFlight} running`,
    );
    console.log('                 RSS       heap used');
    console.log(`before      ${mib(before.rss).padStart(10)}  ${mib(before.heapUsed).padStart(10)}`);
    console.log(`outstanding ${mib(held.rss).padStart(10)}  ${mib(held.heapUsed).padStart(10)}`);
    console.log(
      `cancelled   ${mib(after.rss).padStart(10)}  ${mib(after.heapUsed).padStart(10)}  (${after.inFlight} running)`,
    );
    const rssEach = perPromise(before, held, 'rss');
    const heapEach = perPromise(before, held, 'heapUsed');
    console.log(`per outstanding promise: ${fmt(rssEach)} bytes of RSS, ${fmt(heapEach)} bytes of heap`);
    // Settled promises: made by a tool that answers at once, kept in the store until redeemed or expired.
    const settledBefore = await measure(child);
    await pool(
      Array.from({ length: PROMISES }, (_, n) => n),
      (n) => call('quick', { n }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const settledAfter = await measure(child);
    const settledHeapEach = perPromise(settledBefore, settledAfter, 'heapUsed');
    console.log(`per settled promise: ${fmt(settledHeapEach)} bytes of heap (result {"n":<int>} included)`);
    result = {
      ok: held.inFlight >= PROMISES && after.inFlight === 0 && settledHeapEach < 1536,
      summary: [
        `${fmt(PROMISES)} outstanding promises: RSS ${mib(before.rss)} -> ${mib(held.rss)} ` +
          `(${fmt(rssEach)} B each, heap ${fmt(heapEach)} B each); ${after.inFlight} left running after cancel`,
        `${fmt(PROMISES)} settled promises: ${fmt(settledHeapEach)} B of heap each (target about 1 KB)`,
      ],
    };
  } finally {
    agent.destroy();
    await stopChild(child, 5000);
  }
  // SIGTERM with 10,000 cancelled promises in the store must still end the process cleanly.
  if (child.exitCode !== 0) {
    console.log(`the server did not exit cleanly: ${child.exitCode ?? child.signalCode}`);
    result.ok = false;
  }
  return result;
}

// node:http with keep-alive rather than fetch: several times quicker per call, so that the section is short.
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** POSTs a JSON body; resolves with the status and the body text. */
function post(url, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Asks the server for its memory after a full collection. */
async function measure(child) {
  child.send({ type: 'measure' });
  for (;;) {
    const [message] = await once(child, 'message');
    if (message?.type === 'memory') return message;
  }
}

/** Runs `task(item)` for every item with at most CONCURRENCY at once; resolves with the results in order. */
async function pool(items, task) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  return results;
}
