// gRPC fairness: one greedy client sends 20,000 redeem waits at once on one connection (its own process) while
// another client, on its own connection, calls `echo` one call at a time; reported: the other client's latency
// before and during the flood, how the flood's calls ended, and how much the server grew (peak RSS over the RSS
// before, from /proc). Targets: the other client answered within 1 s throughout, the server grown by under 300 MB.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client, credentials } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { envNumber, fmt, mib, percentile, ROOT, startChild, stopChild } from '../support.js';

const FLOOD = envNumber('BENCH_FAIRNESS_WAITS', 20_000);
const WAIT_MS = envNumber('BENCH_FAIRNESS_WAIT_MS', 15_000);
const PROBE_S = envNumber('BENCH_FAIRNESS_SECONDS', 8);
const TARGET_LATENCY_MS = 1000;
const TARGET_GROWTH = 300 * 1024 * 1024;

export default async function run() {
  console.log(
    `\n## gRPC fairness: ${fmt(FLOOD)} redeem waits (${WAIT_MS} ms each) at once on one connection, while another connection calls echo`,
  );
  // The same flood against the server as it ran without the per-connection stream limit, then with its defaults.
  const unlimited = await flooded({ MAX_STREAMS: '0' });
  const defaults = await flooded({});
  const row = (name, l) =>
    `${name.padEnd(46)} p50 ${fmt(l.p50, 1).padStart(6)} ms  p99 ${fmt(l.p99, 1).padStart(6)} ms  max ${fmt(l.max, 1).padStart(7)} ms  (${fmt(l.calls)} calls)`;
  for (const [name, r] of [
    ['no stream limit', unlimited],
    ['defaults (512 streams/connection)', defaults],
  ]) {
    console.log(row(`${name}, quiet`, r.quiet));
    console.log(row(`${name}, during the flood`, r.loaded));
    console.log(
      `${''.padEnd(46)} flood: ${fmt(r.ended.answered)} answered, ${fmt(r.ended.refused)} refused (RESOURCE_EXHAUSTED), ${fmt(r.ended.other)} other; server +${mib(r.growth)} (peak RSS over the RSS before)`,
    );
  }
  const fair = defaults.loaded.max < TARGET_LATENCY_MS && defaults.loaded.failed === 0;
  const bounded = defaults.growth < TARGET_GROWTH;
  console.log(
    `targets (defaults): other caller under ${TARGET_LATENCY_MS} ms ${fair ? 'met' : 'MISSED'}; growth under ${mib(TARGET_GROWTH)} ${bounded ? 'met' : 'MISSED'}`,
  );
  return {
    ok: defaults.loaded.calls > 0 && unlimited.loaded.calls > 0,
    summary: [
      `grpc fairness, other caller during ${fmt(FLOOD)} waits: max ${fmt(defaults.loaded.max, 1)} ms (no stream limit ${fmt(unlimited.loaded.max, 1)} ms), p99 ${fmt(defaults.loaded.p99, 1)} ms (${fmt(unlimited.loaded.p99, 1)} ms); server +${mib(defaults.growth)} (${mib(unlimited.growth)})`,
    ],
  };
}

/** One server (its options from `env`), one flood against it, the other caller probed before and during it. */
async function flooded(env) {
  const { child: server, match } = await startChild(
    [join(ROOT, 'bench/grpc-fairness-server.js')],
    /fairness grpc listening on (\S+ pid \d+)/,
    { env },
  );
  const [address, , pid] = match.split(' ');
  const probe = prober(address);
  let flood;
  try {
    for (let i = 0; i < 50; i++) await probe.call();
    const quiet = await probe.during(2);
    const before = memory(pid).rss;
    flood = startFlood(address);
    await flood.flooded;
    const loaded = await probe.during(PROBE_S);
    const growth = memory(pid).peak - before;
    return { quiet, loaded, growth, ended: await flood.ended };
  } finally {
    probe.close();
    flood?.kill();
    await stopChild(server);
  }
}

/** The other client: echo calls one after another on its own connection, timed. */
function prober(address) {
  const types = loadSync(join(ROOT, 'proto/mcplite.proto'), { keepCase: true, longs: String, enums: String });
  const request = types['mcplite.ToolRequest'].serialize({
    name: 'echo',
    arguments: { fields: { message: { stringValue: 'hello' } } },
  });
  const client = new Client(address, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
  const call = () =>
    new Promise((resolve) =>
      client.makeUnaryRequest(
        '/mcplite.MCPLite/CallTool',
        (b) => b,
        (b) => b,
        request,
        { deadline: Date.now() + 30_000 },
        (err) => resolve(!err),
      ),
    );
  return {
    call,
    async during(seconds) {
      const latencies = [];
      let failed = 0;
      const end = performance.now() + seconds * 1000;
      while (performance.now() < end) {
        const started = performance.now();
        if (await call()) latencies.push(performance.now() - started);
        else failed++;
        await new Promise((r) => setTimeout(r, 10));
      }
      latencies.sort((a, b) => a - b);
      return {
        calls: latencies.length,
        failed,
        p50: percentile(latencies, 0.5) ?? 0,
        p99: percentile(latencies, 0.99) ?? 0,
        max: latencies.at(-1) ?? 0,
      };
    },
    close: () => client.close(),
  };
}

/** The greedy client's process (bench/grpc-flood.js): resolves `flooded` once it has sent, `ended` with its tally. */
function startFlood(address) {
  const child = spawn(process.execPath, [join(ROOT, 'bench/grpc-flood.js'), address, FLOOD, WAIT_MS], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let onFlooded;
  let onEnded;
  const flooded = new Promise((resolve) => {
    onFlooded = resolve;
  });
  const ended = new Promise((resolve, reject) => {
    onEnded = resolve;
    child.once('exit', (code) => reject(new Error(`the flood exited with ${code} before its result`)));
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'FLOODED') onFlooded();
    const m = /^RESULT (.+)$/.exec(line);
    if (m) onEnded(JSON.parse(m[1]));
  });
  return { flooded, ended, kill: () => child.kill('SIGKILL') };
}

/** A process's resident set now and at its peak, in bytes (Linux /proc). */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}
