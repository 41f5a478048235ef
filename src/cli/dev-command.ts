import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import type { PromiseStore } from '../core/promises/store.js';
import type { ToolServer } from '../core/server.js';
import { createServer } from '../create-server.js';
import { type RunningServer, serve } from '../serve.js';
import { MemoryPromiseStore } from '../stores/memory.js';
import { addAllowedHostsFlag, beyondLoopbackWarning, bindGuard } from './bind-guard.js';
import type { Command } from './commander.js';
import { forgetCommonJs, registerReloadHook } from './dev-reload.js';
import { watchSources } from './dev-watch.js';
import { CliError } from './errors.js';
import { loadServedModule } from './load-module.js';
import { createLogger, LOG_LEVELS, type LogLevel } from './logger.js';
import { openUrl } from './open-url.js';
import { integer } from './parse.js';
import { printable } from './render.js';

/** Flags of `mcplite dev`. */
interface DevFlags {
  port: number;
  host: string;
  open: boolean;
  logLevel: LogLevel;
  allowedHosts?: string[];
}

/** Files whose change reloads the server; anything else (logs, data the tools write) does not. */
const SOURCE = /\.(?:[cm]?[jt]s|tsx|json)$/;
/** How long the file system must be quiet before a reload: an editor's save is often several events. */
const SETTLE_MS = 100;
/** How long calls still running on the old server get before a reload cuts them off. */
const RELOAD_GRACE_MS = 1_000;

/** Registers `mcplite dev <module>`. */
export function registerDev(program: Command): void {
  const command = program
    .command('dev')
    .description(
      'Serve a tool module while you write it: reloaded on every change in its folder, the inspector open, ' +
        'TypeScript without a build step (tsx, or Node 22.18+)',
    )
    .argument('<module>', 'tool module (.js, .mjs or .ts)')
    .option('-p, --port <n>', 'HTTP port (0 picks a free one)', integer(0, 65_535), 3000)
    .option('--host <addr>', 'address to bind (development: loopback)', '127.0.0.1')
    .option('--no-open', 'do not open the inspector in a browser')
    .option('--log-level <level>', `one of ${LOG_LEVELS.join(', ')}`, 'info');
  addAllowedHostsFlag(command).action(async (module: string, flags: DevFlags) => {
    await runDev(module, flags);
  });
}

/**
 * Serves `module` (MCP at /mcp, MCP-lite HTTP, the inspector) and serves it again whenever a source file in its
 * folder changes. One process: a reload imports the module afresh (dev-reload.ts) and restarts the serving part
 * on the same port, while the promise store, the signing secret and the inspector's token outlive it, so a
 * promise whose work had finished is still redeemed after the reload and an open inspector tab keeps working.
 * A module that fails to load leaves the previous version serving, and says why.
 */
export async function runDev(module: string, flags: DevFlags): Promise<void> {
  const path = resolve(module);
  const logger = createLogger(flags.logLevel);
  // One store for the whole session; the servers it outlives must not close it.
  const memoryStore = new MemoryPromiseStore();
  const secret = process.env.MCPLITE_SECRET ?? randomBytes(32).toString('hex');
  const inspectorToken = randomBytes(16).toString('hex');
  let generation = 0;
  let port = flags.port;
  let current: { server: ToolServer; running: RunningServer } | undefined;
  const guard = bindGuard(flags.host, flags.allowedHosts);

  const start = async (): Promise<RunningServer> => {
    if (generation > 0) forgetCommonJs(dirname(path));
    const loaded = await loadServedModule(path, generation);
    const { promiseStore: own, ...options } = loaded.serverOptions;
    // A server the module made is served as it is (its auth, middleware and stores are its own).
    const server =
      loaded.server ??
      createServer({
        ...options,
        tools: loaded.tools,
        logger,
        secret,
        ...(own === false ? {} : { promiseStore: keptOpen(own ?? memoryStore) }),
      });
    if (current) await current.running.close(RELOAD_GRACE_MS);
    const running = await serve(server, {
      port,
      host: flags.host,
      ...guard,
      inspector: { token: inspectorToken },
    }).catch(async (err: unknown) => {
      await server.close();
      throw new CliError(`dev: could not listen on ${flags.host}:${port}: ${(err as Error).message}`, 1, {
        cause: err,
      });
    });
    port = Number(new URL(running.url).port);
    current = { server, running };
    return running;
  };
  const tools = () => current?.server.catalog.names().join(', ');

  const first = await start();
  // After the first load, so that the hook runs before tsx's (registered by then) and sees what it resolves.
  registerReloadHook(dirname(path));

  let timer: NodeJS.Timeout | undefined;
  let reloading: Promise<void> = Promise.resolve();
  const reload = () => {
    generation += 1;
    reloading = reloading.then(() =>
      start().then(
        () => {
          process.stdout.write(`mcplite dev: reloaded (tools: ${tools()})\n`);
        },
        (err: unknown) => {
          const message = err instanceof Error ? err.message : String(err);
          process.stderr.write(
            `mcplite dev: reload failed, still serving the previous version: ${printable(message)}\n`,
          );
        },
      ),
    );
  };
  const watcher = watchSources(dirname(path), (file) => {
    if (!SOURCE.test(file)) return;
    clearTimeout(timer);
    timer = setTimeout(reload, SETTLE_MS);
  });
  // Printed once the folder is watched: scripts (and tests) may edit files as soon as they read it.
  process.stdout.write(`mcplite dev: MCP on ${first.url}/mcp (tools: ${tools()})\n`);
  process.stdout.write(`mcplite inspector on ${first.inspectorUrl}\n`);
  const warning = beyondLoopbackWarning(flags.host, guard);
  if (warning) process.stderr.write(warning);
  if (flags.open && process.stdout.isTTY && first.inspectorUrl) openUrl(first.inspectorUrl);

  const stop = async () => {
    watcher.close();
    clearTimeout(timer);
    await reloading;
    await current?.running.close(RELOAD_GRACE_MS);
    await memoryStore.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** The store, with `close` a no-op: each reload closes its server, and the store must outlive them all. */
function keptOpen(store: PromiseStore): PromiseStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'close') return async () => {};
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
