/**
 * A local multi-replica mcplite: N fronts (`mcplite serve --redis`) and M workers (`mcplite worker --redis`) as
 * real processes of the built CLI (dist/src/cli/main.js), a round-robin HAProxy in front of them, and, when asked,
 * a private redis-server. Shared by `npm run scale-demo` (scripts/scale-demo.mjs) and the scale-out tests
 * (test/support/scale-cluster.ts re-exports it with types from scale-cluster.d.mts); its process helpers are in
 * processes.mjs, re-exported here. Plain ESM with no build step, so that a script can import it; it imports nothing
 * from the repository's TypeScript.
 *
 * Every process keeps its port across restarts (ports are picked once, up front), so a test can kill -9 a replica
 * and start it again where the balancer expects it. Nothing here ever flushes a Redis: each cluster uses its own
 * key prefix (`--redis-prefix`) and `deletePrefix` removes only those keys.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT, spawnProcess, stopProcess, waitForOutput, waitForPort } from './processes.mjs';

export * from './processes.mjs';

/** The built CLI the replicas run (override with MCPLITE_CLI, e.g. a private build). */
export const CLI = process.env.MCPLITE_CLI || join(ROOT, 'dist/src/cli/main.js');
/** HAProxy from Debian (override with HAPROXY_BIN). */
export const HAPROXY = process.env.HAPROXY_BIN || '/usr/sbin/haproxy';
/** redis-server (override with REDIS_SERVER_BIN). */
export const REDIS_SERVER = process.env.REDIS_SERVER_BIN || 'redis-server';
/** The stdout line of a listening `mcplite serve`. */
export const LISTENING = /^mcplite listening on (http:\/\/[^\s]+\/mcp-lite\/v1\/)$/m;
/** The stdout line of a ready `mcplite worker`. */
export const WORKER_READY = /^mcplite worker ready\b.*$/m;

/** Which long options (`--name`) `mcplite <command> --help` lists, so callers can use a flag only if it exists. */
export function cliOptions(command, cli = CLI) {
  const r = spawnSync(process.execPath, [cli, command, '--help'], { encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) return new Set();
  return new Set([...(r.stdout ?? '').matchAll(/(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]));
}

/** A random secret shared by the replicas (MCPLITE_SECRET). */
export function newSecret() {
  return randomBytes(32).toString('hex');
}

/**
 * One restartable mcplite process (a front or a worker): `start` spawns it with the same arguments each time and
 * waits for its ready line; `kill` sends a signal (default SIGKILL) and waits for the exit.
 */
export class Replica {
  constructor(name, kind, args, env, readyPattern, options = {}) {
    this.name = name;
    this.kind = kind;
    this.args = args;
    this.env = env;
    this.readyPattern = readyPattern;
    this.options = options;
    this.proc = undefined;
    this.starts = 0;
  }

  get pid() {
    return this.proc?.pid;
  }

  get alive() {
    return this.proc !== undefined && this.proc.exitCode === undefined;
  }

  async start(timeoutMs = 20_000) {
    if (this.alive) throw new Error(`${this.name} is already running`);
    this.starts += 1;
    this.proc = spawnProcess(this.name, process.execPath, [this.options.cli ?? CLI, ...this.args], {
      env: this.env,
      echo: this.options.echo,
      detached: this.options.detached,
    });
    await waitForOutput(this.proc, this.readyPattern, timeoutMs);
    return this;
  }

  async kill(signal = 'SIGKILL') {
    if (!this.alive) return;
    await stopProcess(this.proc, signal, 3000);
  }

  async restart(timeoutMs) {
    await this.kill('SIGKILL');
    return this.start(timeoutMs);
  }

  stdout() {
    return this.proc?.stdout() ?? '';
  }

  stderr() {
    return this.proc?.stderr() ?? '';
  }
}

/** A front: `mcplite serve --demo --redis …` on fixed ports. */
export class Front extends Replica {
  constructor(name, port, grpcPort, args, env, options) {
    super(name, 'front', args, env, LISTENING, options);
    this.started = false;
    this.usePorts(port, grpcPort);
  }

  usePorts(port, grpcPort) {
    const at = (flag) => this.args.indexOf(flag) + 1;
    if (this.port !== undefined) {
      this.args[at('--port')] = String(port);
      this.args[at('--grpc-port')] = String(grpcPort);
    }
    this.port = port;
    this.grpcPort = grpcPort;
    this.url = `http://127.0.0.1:${port}`;
    this.base = `${this.url}/mcp-lite/v1/`;
    this.rpcUrl = `${this.base}rpc`;
    this.mcpUrl = `${this.url}/mcp`;
  }

  /**
   * Ports are picked free before the first start, and another process on the machine can take one in between:
   * until the front has listened once (before any balancer knows its ports), it moves to other free ports and
   * tries again. A restart keeps its ports.
   */
  async start(timeoutMs) {
    for (let attempt = 1; ; attempt++) {
      try {
        await super.start(timeoutMs);
        this.started = true;
        return this;
      } catch (err) {
        if (this.started || attempt >= 3 || !/the port is in use/.test(String(err?.message))) throw err;
        this.usePorts(await freePort(), await freePort());
      }
    }
  }
}

/** The HAProxy configuration of a round-robin balancer over `servers` ([{ name, port }]), listening on `port`. */
export function haproxyConfig({ port, servers, host = '127.0.0.1', check = '/healthz' }) {
  return [
    'global',
    '  maxconn 4096',
    '',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 120s',
    '  timeout server 120s',
    // SSE streams (MCP GET /mcp, POST streams) are long-lived: keep them open as long as the client does.
    '  timeout tunnel 1h',
    '  timeout http-request 10s',
    '  timeout http-keep-alive 10s',
    // Close the server side after every response, and never reuse one: consecutive requests of one client
    // connection really go to different replicas (round-robin per request, no accidental stickiness).
    '  option http-server-close',
    '  http-reuse never',
    // A dead replica's connection refusal is retried on another one.
    '  retries 2',
    '  option redispatch',
    '',
    'frontend mcplite',
    `  bind ${host}:${port}`,
    '  default_backend replicas',
    '',
    'backend replicas',
    '  balance roundrobin',
    '  option httpchk',
    // With a Host header: replicas bound to loopback refuse requests without one (DNS-rebinding guard).
    `  http-check send meth GET uri ${check} ver HTTP/1.1 hdr Host 127.0.0.1`,
    ...servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port} check inter 500ms fall 2 rise 1`),
    '',
  ].join('\n');
}

/** HAProxy in the foreground (-db) with a generated configuration. `stop` ends it and removes the file. */
export async function startHaproxy({ port, servers, echo = false, check, detached = false }) {
  const dir = mkdtempSync(join(tmpdir(), 'mcplite-haproxy-'));
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(cfg, haproxyConfig({ port, servers, ...(check ? { check } : {}) }));
  const proc = spawnProcess('haproxy', HAPROXY, ['-db', '-f', cfg], { echo, detached });
  await waitForPort(port, 10_000, proc);
  return {
    proc,
    port,
    url: `http://127.0.0.1:${port}`,
    config: cfg,
    async stop() {
      await stopProcess(proc, 'SIGTERM', 2000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A private redis-server (no persistence) on `port`: `kill` ends it with SIGKILL (a crash), `start` brings it back
 * on the same port.
 */
export class RedisServer {
  constructor(port, options = {}) {
    this.port = port;
    this.url = `redis://127.0.0.1:${port}`;
    this.options = options;
    this.proc = undefined;
  }

  get alive() {
    return this.proc !== undefined && this.proc.exitCode === undefined;
  }

  async start() {
    this.proc = spawnProcess(
      `redis:${this.port}`,
      REDIS_SERVER,
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
      ],
      { echo: this.options.echo, detached: this.options.detached },
    );
    await waitForPort(this.port, 10_000, this.proc);
    return this;
  }

  async kill(signal = 'SIGKILL') {
    if (this.alive) await stopProcess(this.proc, signal, 2000);
  }
}

/**
 * An ioredis client for bookkeeping (clean-up, measurements): connected, or rejected within about 2 s when Redis
 * does not answer; it never retries. The caller disconnects it.
 */
export async function connectAdmin(redisUrl) {
  const { Redis } = await import('ioredis');
  const client = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return client;
  } catch (err) {
    client.disconnect();
    throw err;
  }
}

/** Deletes the keys under `prefix` (SCAN + UNLINK; never FLUSHALL): a run's leftovers on a shared Redis. */
export async function deletePrefix(redisUrl, prefix) {
  if (!prefix || prefix.length < 8)
    throw new Error(`refusing to delete keys under a short prefix "${prefix}"`);
  const client = await connectAdmin(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await client.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

/**
 * Starts `fronts` fronts and `workers` workers on one Redis with one secret and one key prefix, and HAProxy over
 * the fronts. Fronts work no queued jobs (`--no-worker`) when there are workers, unless `frontsWork`.
 * Options: redisUrl (required), fronts (3), workers (2), lbPort (a free one), secret, prefix, frontArgs,
 * workerArgs, frontsWork, echo, cli, detached (children in their own process groups).
 */
export async function startCluster(options) {
  const cli = options.cli ?? CLI;
  const serveFlags = cliOptions('serve', cli);
  const workerFlags = cliOptions('worker', cli);
  const secret = options.secret ?? newSecret();
  const prefix = options.prefix ?? `mcplite-scale-${randomBytes(4).toString('hex')}:`;
  const nFronts = options.fronts ?? 3;
  const nWorkers = options.workers ?? 2;
  const env = { MCPLITE_SECRET: secret, MCPLITE_TOKENS: '', ...(options.env ?? {}) };
  // Fronts and workers must agree on where the queue lives: a flag goes to both or to neither.
  const both = (flag) => serveFlags.has(flag) && workerFlags.has(flag);
  const prefixArgs = both('--redis-prefix') ? ['--redis-prefix', prefix] : [];
  const queue = `${prefix.replace(/:$/, '')}-work`;
  const queueArgs = both('--queue') ? ['--queue', queue] : [];
  const isolated = prefixArgs.length > 0 || queueArgs.length > 0;
  if (!isolated && nWorkers > 0) {
    process.emitWarning(
      'scale-cluster: neither --redis-prefix nor --queue is accepted by both `serve` and `worker`: this cluster ' +
        'uses the default queue, shared with any other mcplite on the same Redis',
    );
  }
  const logArgs = ['--log-level', options.logLevel ?? 'warn'];
  const frontsWork = options.frontsWork ?? nWorkers === 0;
  const fronts = [];
  for (let i = 0; i < nFronts; i++) {
    const port = await freePort();
    const grpcPort = await freePort();
    fronts.push(
      new Front(
        `front${i + 1}`,
        port,
        grpcPort,
        [
          'serve',
          '--demo',
          '--redis',
          options.redisUrl,
          ...prefixArgs,
          ...queueArgs,
          '--port',
          String(port),
          '--grpc-port',
          String(grpcPort),
          ...logArgs,
          ...(frontsWork ? [] : ['--no-worker']),
          ...(options.frontArgs ?? []),
        ],
        env,
        { cli, echo: options.echo, detached: options.detached },
      ),
    );
  }
  const workers = [];
  for (let i = 0; i < nWorkers; i++) {
    workers.push(
      new Replica(
        `worker${i + 1}`,
        'worker',
        [
          'worker',
          '--demo',
          '--redis',
          options.redisUrl,
          ...prefixArgs,
          ...queueArgs,
          ...logArgs,
          ...(options.workerArgs ?? []),
        ],
        env,
        WORKER_READY,
        { cli, echo: options.echo, detached: options.detached },
      ),
    );
  }
  const cluster = {
    secret,
    prefix,
    redisUrl: options.redisUrl,
    serveFlags,
    workerFlags,
    isolated,
    fronts,
    workers,
    lb: undefined,
    async stop() {
      await Promise.allSettled([
        ...fronts.map((f) => f.kill('SIGTERM')),
        ...workers.map((w) => w.kill('SIGTERM')),
        cluster.lb?.stop(),
      ]);
      if (options.cleanup !== false && prefixArgs.length > 0) {
        await deletePrefix(options.redisUrl, prefix).catch(() => undefined);
      }
    },
  };
  try {
    await Promise.all([...fronts.map((f) => f.start()), ...workers.map((w) => w.start())]);
    const lbPort = options.lbPort ?? (await freePort());
    cluster.lb = await startHaproxy({
      port: lbPort,
      servers: fronts.map((f) => ({ name: f.name, port: f.port })),
      echo: options.echo,
      detached: options.detached,
    });
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}
