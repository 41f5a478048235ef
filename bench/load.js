// Interleaved HTTP load for the throughput sections: every contender gets the same autocannon load, round after
// round, and results are read as ratios of rounds that ran back to back. This machine (like most CI machines) is
// shared, and its speed drifts by 10-20% over seconds; short paired rounds in alternating order make such a drift
// hit both sides of a ratio alike, and the median of the paired ratios ignores a round that a burst still hit.
import autocannon from 'autocannon';
import { cpuTimeMs, envNumber, fmt, perMicros, stopChild, validateContender } from './support.js';

/**
 * The load settings, from the environment so that quick runs are easy (BENCH_ROUNDS=3 BENCH_DURATION=2 npm run
 * bench). `rounds` and `duration` are per contender; `warmup` runs once per contender before the first round.
 */
export function loadSettings(defaults = {}) {
  return {
    connections: envNumber('BENCH_CONNECTIONS', defaults.connections ?? 50),
    pipelining: 1,
    duration: envNumber('BENCH_DURATION', defaults.duration ?? 3),
    warmup: envNumber('BENCH_WARMUP', defaults.warmup ?? 3),
    rounds: envNumber('BENCH_ROUNDS', defaults.rounds ?? 10),
  };
}

/** One line that says how the load was applied. */
export function describeLoad(load) {
  return (
    `autocannon: ${load.connections} connections, pipelining ${load.pipelining}, ${load.warmup} s warm-up, ` +
    `${load.rounds} rounds of ${load.duration} s per contender, back to back in alternating order`
  );
}

/**
 * Starts the contenders (each `start()` resolves with one), checks that each answers the benchmark call right,
 * loads them with `runInterleaved` and stops them, also when something fails. Resolves with the contenders and
 * their runs.
 */
export async function measureContenders(starters, load) {
  const contenders = [];
  try {
    for (const start of starters) contenders.push(await start());
    for (const c of contenders) await validateContender(c);
    await runInterleaved(contenders, load);
  } finally {
    await Promise.all(contenders.map((c) => stopChild(c.child)));
  }
  return contenders;
}

/**
 * Warms every contender up, then runs `load.rounds` rounds; each round loads every contender once, in the list's
 * order on even rounds and in reverse on odd ones. Each contender's `runs` gets one result of `once(c, load,
 * seconds)` per round: by default an autocannon result, with `cpuMicrosPerRequest` (the server's own CPU time per
 * answered request, from /proc) where Linux tells it. Another `once` must resolve with the same shape.
 */
export async function runInterleaved(contenders, load, once = loadOnce) {
  for (const c of contenders) await once(c, load, load.warmup);
  for (let round = 0; round < load.rounds; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const c of order) c.runs.push(await once(c, load, load.duration));
  }
}

async function loadOnce(c, load, duration) {
  const cpuBefore = cpuTimeMs(c.child.pid);
  const result = await autocannon({
    url: c.url,
    method: 'POST',
    headers: c.headers,
    body: c.body,
    connections: load.connections,
    pipelining: load.pipelining,
    duration,
  });
  const cpuMicrosPerRequest = perMicros(cpuBefore, cpuTimeMs(c.child.pid), result.requests.total);
  if (cpuMicrosPerRequest !== undefined) result.cpuMicrosPerRequest = cpuMicrosPerRequest;
  return result;
}

/**
 * The throughput ratio a/b: the median of the per-round ratios (the headline figure), their mean, the ratio of the
 * mean throughputs, and each round's ratio.
 */
export function pairedRatio(a, b) {
  const perRound = a.runs.map((r, i) => r.requests.average / b.runs[i].requests.average);
  const sorted = [...perRound].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return {
    median,
    meanOfRatios: perRound.reduce((s, x) => s + x, 0) / perRound.length,
    ratioOfMeans: meanRps(a) / meanRps(b),
    perRound,
  };
}

/** A contender's mean throughput over its rounds. */
export function meanRps(c) {
  return mean(c.runs, (r) => r.requests.average);
}

/** Whether every run of every contender answered without errors and with 2xx only. */
export function allClean(contenders) {
  return contenders.every((c) => c.runs.every((r) => r.errors === 0 && r.non2xx === 0));
}

/**
 * Prints one row per contender: mean req/s, its spread over rounds, p50/p99, errors, CPU per request, ratio.
 * `unit`, `cpuHeader` and `ratioHeader` rename columns; `extra` ([{ header, cell(c) }]) adds columns before the
 * ratio, which is left out when there is only one contender.
 */
export function printTable(
  contenders,
  baseline,
  { unit = 'req/s', cpuHeader = 'CPU µs/req', ratioHeader = 'vs baseline', extra = [] } = {},
) {
  const withRatio = contenders.length > 1;
  const rows = contenders.map((c) => {
    const rps = c.runs.map((r) => r.requests.average);
    return [
      c.name,
      fmt(meanRps(c)),
      `${fmt(Math.min(...rps))}-${fmt(Math.max(...rps))}`,
      mean(c.runs, (r) => r.latency.p50).toFixed(1),
      meanP99(c).toFixed(1),
      String(c.runs.reduce((s, r) => s + r.errors + r.non2xx, 0)),
      meanOfDefined(c.runs, 'cpuMicrosPerRequest')?.toFixed(0) ?? '-',
      ...extra.map((x) => x.cell(c)),
      ...(withRatio ? [c === baseline ? '1.00x' : `${pairedRatio(c, baseline).median.toFixed(2)}x`] : []),
    ];
  });
  const header = [
    'contender',
    unit,
    'range',
    'p50 ms',
    'p99 ms',
    'errors',
    cpuHeader,
    ...extra.map((x) => x.header),
    ...(withRatio ? [ratioHeader] : []),
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(line(header));
  for (const r of rows) console.log(line(r));
}

/** A contender's p99 latency: the mean over its rounds of each round's p99. */
export function meanP99(c) {
  return mean(c.runs, (r) => r.latency.p99);
}

/** The mean of `key` over the runs that have it, or undefined when none has. */
export function meanOfDefined(runs, key) {
  const some = runs.filter((r) => r[key] !== undefined);
  return some.length ? mean(some, (r) => r[key]) : undefined;
}

/** Prints how a ratio was reached: per round, median, mean of the rounds and ratio of the means. */
export function printRatio(label, ratio) {
  console.log(
    `${label} per round: ${ratio.perRound.map((x) => x.toFixed(2)).join(' ')}\n` +
      `${label}: median ${ratio.median.toFixed(2)}x, mean ${ratio.meanOfRatios.toFixed(2)}x, ` +
      `ratio of mean throughputs ${ratio.ratioOfMeans.toFixed(2)}x`,
  );
}

export function mean(items, pick) {
  return items.reduce((s, x) => s + pick(x), 0) / items.length;
}
