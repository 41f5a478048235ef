#!/usr/bin/env node
/**
 * `npm run scale-demo`: a local multi-replica mcplite in one command. Three fronts and one worker of the demo
 * tools share one Redis (REDIS_URL, else 127.0.0.1:6379, else a redis-server started here on a free port) and one
 * generated MCPLITE_SECRET, behind a round-robin HAProxy on port 8080 (or the next free one). Ctrl-C stops
 * everything and deletes this run's keys. Needs `npm run build` (the npm script runs it), redis-server and haproxy.
 */
import { existsSync } from 'node:fs';
import {
  CLI,
  deletePrefix,
  firstFreePort,
  freePort,
  HAPROXY,
  newSecret,
  portAnswers,
  RedisServer,
  startCluster,
  stopAll,
} from './scale-cluster.mjs';

const FRONTS = 3;
const WORKERS = 1;

function fail(message) {
  process.stderr.write(`scale-demo: ${message}\n`);
  process.exit(1);
}

const USAGE = `Usage: npm run scale-demo   (or: node scripts/scale-demo.mjs)

Starts ${FRONTS} fronts (mcplite serve --demo --redis --no-worker) and ${WORKERS} worker (mcplite worker --demo --redis) on one
Redis (REDIS_URL, else 127.0.0.1:6379, else a redis-server started here), behind a round-robin HAProxy on port
8080 (or the next free one). Ctrl-C stops everything and deletes this run's Redis keys. It takes no options.
`;
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (args.length > 0) fail(`unknown argument ${args[0]}\n${USAGE}`);
if (!existsSync(CLI)) fail(`${CLI} is missing: run \`npm run build\` first`);
if (!existsSync(HAPROXY)) fail(`${HAPROXY} is missing: install HAProxy (Debian: apt-get install haproxy)`);

/** Whether a Redis answers PING at `url` within a second. */
async function redisAnswers(url) {
  let host = '127.0.0.1';
  let port = 6379;
  try {
    const u = new URL(url);
    host = u.hostname || host;
    port = Number(u.port || 6379);
  } catch {
    return false;
  }
  if (!(await portAnswers(port, host, 1000))) return false;
  const { Redis } = await import('ioredis');
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

let ownRedis;
let cluster;
let stopping = false;

async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  process.stdout.write('\nscale-demo: stopping…\n');
  await cluster?.stop().catch(() => undefined);
  await ownRedis?.kill('SIGTERM').catch(() => undefined);
  await stopAll();
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

let redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
if (!(await redisAnswers(redisUrl))) {
  const port = await freePort();
  process.stdout.write(
    `scale-demo: no Redis answers at ${redisUrl}; starting redis-server on port ${port}\n`,
  );
  try {
    ownRedis = await new RedisServer(port, { detached: true }).start();
  } catch (err) {
    fail(`could not start redis-server (install redis-server, or set REDIS_URL): ${err.message}`);
  }
  redisUrl = ownRedis.url;
}

const secret = newSecret();
const prefix = `mcplite-demo-${process.pid}:`;
try {
  cluster = await startCluster({
    redisUrl,
    fronts: FRONTS,
    workers: WORKERS,
    secret,
    prefix,
    lbPort: await firstFreePort(8080),
    logLevel: 'warn',
    echo: false,
    detached: true,
  });
} catch (err) {
  process.stderr.write(`scale-demo: could not start: ${err.message}\n`);
  await ownRedis?.kill('SIGTERM');
  await stopAll();
  await deletePrefix(redisUrl, prefix).catch(() => undefined);
  process.exit(1);
}

// Whatever a replica logs from now on (warnings and errors) is shown, tagged with its name.
for (const r of [...cluster.fronts, ...cluster.workers, { name: 'haproxy', proc: cluster.lb.proc }]) {
  r.proc.child.stderr.on('data', (chunk) => {
    if (stopping) return; // what replicas say while everything stops is noise
    for (const line of String(chunk).split('\n').filter(Boolean))
      process.stderr.write(`[${r.name}] ${line}\n`);
  });
  r.proc.exited.then((code) => {
    if (!stopping) process.stderr.write(`scale-demo: ${r.name} exited (${code})\n`);
  });
}

const lb = cluster.lb.url;
const lines = [
  '',
  `mcplite scale-demo: ${FRONTS} fronts + ${WORKERS} worker on ${redisUrl}${ownRedis ? ' (started here)' : ''}, key prefix ${prefix}`,
  '',
  `  load balancer (HAProxy, round-robin)  ${lb}/mcp-lite/v1/   MCP: ${lb}/mcp`,
  ...cluster.fronts.map(
    (f) =>
      `  ${f.name} (pid ${f.pid})${' '.repeat(Math.max(1, 22 - f.name.length - String(f.pid).length))}${f.base}`,
  ),
  ...cluster.workers.map((w) => `  ${w.name} (pid ${w.pid})`),
  '',
  'Try (each request lands on the next front; a promise made on one is redeemed on another):',
  `  curl -s ${lb}/healthz`,
  `  curl -s ${lb}/mcp-lite/v1/rpc -H 'content-type: application/json' \\`,
  `    -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"analyze_dataset","arguments":{"dataset_id":"all","analysis_type":"summary"}}}'`,
  `  curl -s ${lb}/mcp-lite/v1/rpc -H 'content-type: application/json' \\`,
  `    -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"redeem","arguments":{"promise":"<promise_token>","wait_ms":5000}}}'`,
  `  node ${CLI.replace(`${process.cwd()}/`, '')} call ${lb}/mcp-lite/v1/ analyze_dataset dataset_id=all analysis_type=summary`,
  '',
  'Ctrl-C stops everything.',
  '',
];
process.stdout.write(lines.join('\n'));
