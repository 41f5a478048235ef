import { spawn } from 'node:child_process';
import { type Command, Option } from 'commander';
import { listenNode, type NodeListening } from '../adapters/node.js';
import { bindingOf } from '../client/detect.js';
import type { NeutralHandler } from '../core/http.js';
import { createInspector } from '../inspector/index.js';
import { inspectorTarget } from '../inspector/targets/index.js';
import { CliError } from './errors.js';
import { signIn } from './login-command.js';
import { integer } from './parse.js';
import { printable } from './render.js';

/** The flags of `mcplite inspect`, as commander parses them. */
export interface InspectFlags {
  port: number;
  host: string;
  open: boolean;
  token?: string;
}

/** Adds `inspect <target>` to the program. */
export function registerInspect(program: Command): void {
  program
    .command('inspect')
    .description('Serve a local web page to see, call and debug the tools of a server')
    .argument(
      '<target>',
      'the server: an MCP-lite HTTP URL (http://127.0.0.1:3000/mcp-lite/v1/), an MCP URL (…/mcp), grpc://host:port, a Webtools URL, or a command line (MCP over stdio)',
    )
    .addOption(
      new Option('--port <n>', 'port of the local page (0 picks a free one)')
        .argParser(integer(0, 65535))
        .default(0),
    )
    .option(
      '--host <addr>',
      'address of the local page (keep it on loopback: the page can call tools)',
      '127.0.0.1',
    )
    .option('--no-open', 'do not open a browser')
    .option('--token <token>', 'bearer token for the target (prefer env MCPLITE_TOKEN: flags show up in ps)')
    .action(async (target: string, flags: InspectFlags) => {
      await runInspect(target, flags);
    });
}

/** Starts the inspector's page for `target`, prints its URL, opens a browser when one is at hand. */
export async function runInspect(target: string, flags: InspectFlags): Promise<NodeListening> {
  // Without a static token, a protected server gets the CLI's sign-in (browser, loopback redirect, token file)
  // before the page opens; the page then sends the token. A failed sign-in is said, and the page shows the 401.
  let token = flags.token ?? process.env.MCPLITE_TOKEN;
  if (!token && bindingOf(target) !== 'stdio')
    token = await signIn(target, { browser: flags.open }).catch((err: Error) => {
      // Only a refused sign-in is news here; an unreachable target is reported below, as before.
      const code = (err.cause as { code?: string } | undefined)?.code;
      if (code === 'unauthenticated' || code === 'forbidden')
        process.stderr.write(`mcplite: ${printable(err.message)}\n`);
      return undefined;
    });
  let inspected: Awaited<ReturnType<typeof inspectorTarget>>;
  try {
    inspected = await inspectorTarget(target, token ? { authorization: `Bearer ${token}` } : {});
  } catch (err) {
    throw new CliError(`Cannot inspect "${target}": ${(err as Error).message}`, 2, { cause: err });
  }
  const inspector = createInspector({ target: inspected });
  // The page lives at /inspector/ as on a server; the root only points there.
  const root: NeutralHandler = (request) =>
    request.path === '/'
      ? Promise.resolve({ status: 302, headers: { location: inspector.path } })
      : undefined;
  let listening: NodeListening;
  try {
    listening = await listenNode((request) => inspector.handler(request) ?? root(request), {
      port: flags.port,
      host: flags.host,
    });
  } catch (err) {
    await inspected.close();
    throw new CliError(`Cannot listen on ${flags.host}:${flags.port}: ${(err as Error).message}`, 1, {
      cause: err,
    });
  }
  // The token is in the URL: only the operator sees this line, and the page trades the token for a cookie at once.
  const url = `${listening.url}${inspector.entryPath}`;
  // The one line on stdout: scripts and tests read the (possibly picked) port and the token from it.
  process.stdout.write(`mcplite inspector on ${url} (inspecting ${target})\n`);
  if (flags.open && process.stdout.isTTY) openBrowser(url);
  const stop = () => {
    void Promise.allSettled([listening.close(), inspected.close()]).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return listening;
}

/** Opens the page in the desktop's browser, when there is a desktop; silently does nothing otherwise. */
export function openBrowser(url: string): void {
  const command =
    process.platform === 'darwin'
      ? ['open', url]
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '', url]
        : process.env.DISPLAY || process.env.WAYLAND_DISPLAY
          ? ['xdg-open', url]
          : undefined;
  if (!command) return;
  const child = spawn(command[0]!, command.slice(1), { stdio: 'ignore', detached: true });
  child.on('error', () => {});
  child.unref();
}
