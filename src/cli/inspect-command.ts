import { listenNode, type NodeListening } from '../adapters/node.js';
import { bindingOf, oauthServer } from '../client/detect.js';
import type { NeutralHandler } from '../core/http.js';
import { createInspector, InspectorSignIn } from '../inspector/index.js';
import { deferredTarget } from '../inspector/targets/deferred.js';
import { inspectorTarget } from '../inspector/targets/index.js';
import { type Command, Option } from './commander.js';
import { CliError } from './errors.js';
import { oauthFlagOptions, oauthIssuerOption } from './oauth-options.js';
import { openUrl } from './open-url.js';
import { integer } from './parse.js';
import { fileOAuthStore } from './token-file.js';

/** The flags of `mcplite inspect`, as commander parses them. */
export interface InspectFlags {
  port: number;
  host: string;
  open: boolean;
  token?: string;
  /** The protected resource to sign in to, when it is not the target (a gRPC target's HTTP URL). */
  oauthResource?: string;
  clientId?: string;
  /** `--oauth-issuer`: the authorization servers to sign in with (needed with `$MCPLITE_CLIENT_SECRET`). */
  oauthIssuer?: string[];
  scope?: string;
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
    .option(
      '--oauth-resource <url>',
      "sign in to this resource instead of the target: for grpc://, the server's HTTP URL",
    )
    .option('--client-id <id>', 'OAuth client id registered for mcplite (default: register dynamically)')
    .addOption(oauthIssuerOption())
    .option('--scope <scope>', 'OAuth scope to ask for when the server names none')
    .action(async (target: string, flags: InspectFlags) => {
      await runInspect(target, flags);
    });
}

/** Starts the inspector's page for `target`, prints its URL, opens a browser when one is at hand. */
export async function runInspect(target: string, flags: InspectFlags): Promise<NodeListening> {
  // Without a static token, a protected server is signed in to from the page: the client's OAuth hands the
  // authorization URL to the page, the browser comes back to the page's own callback route, and the tokens are
  // kept (and refreshed) as `mcplite login` keeps them.
  const token = flags.token ?? process.env.MCPLITE_TOKEN;
  const signIn =
    token || bindingOf(target) === 'stdio'
      ? undefined
      : new InspectorSignIn(oauthServer(flags.oauthResource ?? target), fileOAuthStore());
  const oauth = signIn?.oauthOptions({ clientName: 'mcplite inspector', ...oauthFlagOptions(flags) });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const connect = () => inspectorTarget(target, headers, oauth);
  const connecting = connect();
  // The page listens while the target connects: a connection that waits for a sign-in waits for the page.
  const inspected = deferredTarget({ binding: bindingOf(target) ?? 'mcp', target }, connecting, connect);
  // The redirect comes back to `/callback`, the path `mcplite login` registers, so its registration serves here too.
  const inspector = createInspector({
    target: inspected,
    ...(signIn ? { signIn, signInCallbackPath: '/callback' } : {}),
  });
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
    // Not awaited: a connection waiting for a sign-in would wait for a page that never came.
    void inspected.close().catch(() => {});
    throw new CliError(`Cannot listen on ${flags.host}:${flags.port}: ${(err as Error).message}`, 1, {
      cause: err,
    });
  }
  signIn?.setRedirectUrl(`${listening.url}${inspector.callbackPath}`);
  // Connected, or a sign-in asked of the page: either way the page has something to show. A target that cannot
  // be reached (and asks for no sign-in) is reported here, as before.
  try {
    await Promise.race([connecting, signIn ? signIn.requested() : new Promise<never>(() => {})]);
  } catch (err) {
    await listening.close();
    throw new CliError(`Cannot inspect "${target}": ${(err as Error).message}`, 2, { cause: err });
  }
  // The token is in the URL: only the operator sees this line, and the page trades the token for a cookie at once.
  const url = `${listening.url}${inspector.entryPath}`;
  // The one line on stdout: scripts and tests read the (possibly picked) port and the token from it.
  process.stdout.write(`mcplite inspector on ${url} (inspecting ${target})\n`);
  if (flags.open && process.stdout.isTTY) openUrl(url);
  const stop = () => {
    void Promise.allSettled([listening.close(), inspected.close()]).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return listening;
}
