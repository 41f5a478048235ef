import { spawn } from 'node:child_process';
import { isLoopbackHost } from '../bindings/common/host-guard.js';
import { CliError } from './errors.js';
import { printable } from './render.js';

/**
 * Whether the CLI may hand `url` to the system's opener: https anywhere, http only on loopback (the inspector, a
 * local sign-in page). Anything else a server names (file:, javascript:, a custom scheme an installed app claims)
 * would make the opener read a file or start a program, so it is never opened.
 */
export function openable(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'https:') return true;
  return parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname);
}

/**
 * Opens `url` in the user's browser: the one way every command (login, the sign-in of any client command,
 * inspect, dev) does it. A URL `openable` refuses is a CliError naming it. Silence when no browser can be
 * started (the URL is printed beside every call), and on Linux without a display, where xdg-open would start a
 * text browser in the user's terminal. On Windows the URL goes to rundll32's URL handler as one argument, never
 * through cmd.exe, whose metacharacters (&, |, ^) a URL may carry.
 */
export function openUrl(url: string): void {
  if (!openable(url)) {
    throw new CliError(
      `Not opening ${printable(url)}: only https URLs (or http on loopback) are opened in a browser`,
    );
  }
  const href = new URL(url).href;
  const command: [string, string[]] | undefined =
    process.platform === 'darwin'
      ? ['open', [href]]
      : process.platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', href]]
        : process.env.DISPLAY || process.env.WAYLAND_DISPLAY
          ? ['xdg-open', [href]]
          : undefined;
  if (!command) return;
  try {
    const child = spawn(command[0], command[1], { stdio: 'ignore', detached: true, shell: false });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No browser here: the printed URL is the way.
  }
}
