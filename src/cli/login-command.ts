import { bindingOf, oauthServer } from '../client/detect.js';
import { connect } from '../client/index.js';
import type { Command } from './commander.js';
import { CliError } from './errors.js';
import { cliOAuth, type OAuthFlags, withOAuthFlags } from './oauth-options.js';
import { integer } from './parse.js';
import { printable } from './render.js';
import { fileOAuthStore } from './token-file.js';

/**
 * `mcplite login <target>` signs in to a protected server ahead of time (the other commands sign in when a
 * server first asks, too) and keeps the tokens in the user's token file; `mcplite logout <target>` forgets them.
 */
export function registerLogin(program: Command): void {
  withOAuthFlags(
    program
      .command('login')
      .description('sign in to a protected server (OAuth) and keep its tokens for the other commands')
      .argument('<target>', 'the server URL (MCP, MCP-lite HTTP or Webtools)'),
  )
    .option('--timeout <ms>', 'give up after this many milliseconds', integer(1))
    .action((target: string, o: OAuthFlags & { timeout?: number }) => login(target, o));
  program
    .command('logout')
    .description('forget the tokens kept for a server')
    .argument('<target>', 'the server URL')
    .action(async (target: string) => {
      const store = fileOAuthStore();
      const server = httpTarget(target);
      const had = (await store.load(server)) !== undefined;
      await store.delete?.(server);
      process.stdout.write(`${had ? 'Signed out of' : 'No sign-in kept for'} ${printable(server)}\n`);
    });
}

async function login(target: string, o: OAuthFlags & { timeout?: number }): Promise<void> {
  const server = httpTarget(target, o);
  const store = fileOAuthStore();
  // A fresh sign-in: tokens kept from before are dropped, the registration kept.
  const kept = await store.load(server);
  if (kept?.tokens) await store.save(server, { ...(kept.client ? { client: kept.client } : {}) });
  const token = await signIn(target, o);
  process.stdout.write(
    token
      ? `Signed in to ${printable(server)}\n`
      : `${printable(server)} did not ask for a sign-in: nothing to keep\n`,
  );
}

/**
 * Reaches `target` once with the CLI's OAuth (a sign-in if the server asks, or the tokens kept, refreshed if
 * need be) and answers the access token kept for it afterwards; undefined when the server asked for none.
 * `mcplite login` uses it.
 */
export async function signIn(
  target: string,
  o: OAuthFlags & { timeout?: number },
): Promise<string | undefined> {
  const server = httpTarget(target, o);
  const controller = new AbortController();
  const timer = o.timeout
    ? setTimeout(() => controller.abort(new Error(`No sign-in within ${o.timeout} ms`)), o.timeout)
    : undefined;
  const oauth = cliOAuth(o, controller.signal);
  try {
    const client = await connect(target, { oauth: oauth.oauth, stderr: 'inherit' });
    try {
      await client.listTools({ signal: controller.signal });
    } finally {
      await client.close().catch(() => {});
    }
    return (await fileOAuthStore().load(server))?.tokens?.access_token;
  } catch (err) {
    throw new CliError(`Sign-in to ${printable(server)} failed: ${(err as Error).message}`, 1, {
      cause: err,
    });
  } finally {
    clearTimeout(timer);
    oauth.close();
  }
}

/** The server key of a target that can sign in (an http(s) or gRPC URL), or of the `--oauth-resource` it names. */
function httpTarget(target: string, o: OAuthFlags = {}): string {
  if (bindingOf(target) === 'stdio')
    throw new CliError(`${target} is not a server URL: there is nothing to sign in to`, 2);
  return oauthServer(o.oauthResource ?? target);
}
