/** Types of scripts/scale-cluster.mjs (a local multi-replica mcplite behind HAProxy), for the TypeScript tests. */
import type { ChildProcess } from 'node:child_process';

export const ROOT: string;
export const CLI: string;
export const HAPROXY: string;
export const REDIS_SERVER: string;
export const LISTENING: RegExp;
export const WORKER_READY: RegExp;

/** A spawned process with its output collected. */
export interface Proc {
  name: string;
  child: ChildProcess;
  pid: number | undefined;
  /** The exit code or signal; undefined while it runs. */
  exitCode: number | string | undefined;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | string>;
}

export function freePort(): Promise<number>;
export function firstFreePort(from: number, count?: number): Promise<number>;
export function portAnswers(port: number, host?: string, timeoutMs?: number): Promise<boolean>;
export function waitForPort(port: number, timeoutMs?: number, proc?: Proc): Promise<void>;
export function sleep(ms: number): Promise<void>;
export function spawnProcess(
  name: string,
  command: string,
  args: string[],
  options?: {
    cwd?: string;
    env?: Record<string, string>;
    echo?: boolean;
    keepChars?: number;
    detached?: boolean;
  },
): Proc;
export function waitForOutput(
  proc: Proc,
  pattern: RegExp,
  timeoutMs?: number,
  stream?: 'stdout' | 'stderr',
): Promise<RegExpExecArray>;
export function stopProcess(proc: Proc | undefined, signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
export function stopAll(graceMs?: number): Promise<void>;
export function cliOptions(command: string, cli?: string): Set<string>;
export function newSecret(): string;

/** A restartable mcplite process (front or worker) that keeps its arguments (and so its ports). */
export class Replica {
  constructor(
    name: string,
    kind: 'front' | 'worker',
    args: string[],
    env: Record<string, string>,
    readyPattern: RegExp,
    options?: { cli?: string; echo?: boolean; detached?: boolean },
  );
  readonly name: string;
  readonly kind: 'front' | 'worker';
  readonly args: string[];
  proc: Proc | undefined;
  /** How many times it was started. */
  starts: number;
  readonly pid: number | undefined;
  readonly alive: boolean;
  start(timeoutMs?: number): Promise<this>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  restart(timeoutMs?: number): Promise<this>;
  stdout(): string;
  stderr(): string;
}

/** A front (`mcplite serve --redis`) on fixed ports. */
export class Front extends Replica {
  constructor(
    name: string,
    port: number,
    grpcPort: number,
    args: string[],
    env: Record<string, string>,
    options?: { cli?: string; echo?: boolean; detached?: boolean },
  );
  readonly port: number;
  readonly grpcPort: number;
  /** http://127.0.0.1:port */
  readonly url: string;
  /** http://127.0.0.1:port/mcp-lite/v1/ */
  readonly base: string;
  /** The MCP-lite JSON-RPC endpoint. */
  readonly rpcUrl: string;
  /** The MCP Streamable HTTP endpoint. */
  readonly mcpUrl: string;
}

export function haproxyConfig(options: {
  port: number;
  servers: Array<{ name: string; port: number }>;
  host?: string;
  check?: string;
}): string;

export interface Haproxy {
  proc: Proc;
  port: number;
  /** http://127.0.0.1:port */
  url: string;
  config: string;
  stop(): Promise<void>;
}

export function startHaproxy(options: {
  port: number;
  servers: Array<{ name: string; port: number }>;
  echo?: boolean;
  check?: string;
  detached?: boolean;
}): Promise<Haproxy>;

/** A private redis-server without persistence. */
export class RedisServer {
  constructor(port: number, options?: { echo?: boolean; detached?: boolean });
  readonly port: number;
  readonly url: string;
  proc: Proc | undefined;
  readonly alive: boolean;
  start(): Promise<this>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function deletePrefix(redisUrl: string, prefix: string): Promise<void>;

export interface ClusterOptions {
  redisUrl: string;
  fronts?: number;
  workers?: number;
  lbPort?: number;
  secret?: string;
  prefix?: string;
  frontArgs?: string[];
  workerArgs?: string[];
  /** Whether fronts also work queued jobs (default: only when there are no workers). */
  frontsWork?: boolean;
  env?: Record<string, string>;
  logLevel?: string;
  echo?: boolean;
  cli?: string;
  /** Children in process groups of their own (a terminal's Ctrl-C reaches only the caller). */
  detached?: boolean;
  /** Delete the run's keys when stopping (default true). */
  cleanup?: boolean;
}

export interface Cluster {
  secret: string;
  prefix: string;
  redisUrl: string;
  /** The long options `mcplite serve --help` lists. */
  serveFlags: Set<string>;
  /** The long options `mcplite worker --help` lists (empty without the command). */
  workerFlags: Set<string>;
  /** Whether the run has a queue (and keys) of its own (--redis-prefix or --queue accepted by serve and worker). */
  isolated: boolean;
  fronts: Front[];
  workers: Replica[];
  lb: Haproxy | undefined;
  stop(): Promise<void>;
}

export function startCluster(options: ClusterOptions): Promise<Cluster>;
