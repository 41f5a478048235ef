/**
 * `@modelcontextprotocol/server-everything`, a real third-party MCP server installed from npm, for the client and
 * gateway tests: its entry point, its stdio command line, and a Streamable HTTP instance on a free port.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { freePort } from './free-port.js';

const require = createRequire(import.meta.url);
/** The server's entry point, run with this Node. */
export const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
/** The command line that runs it over stdio. */
export const EVERYTHING_STDIO = `${process.execPath} ${EVERYTHING} stdio`;

/** A running server-everything over Streamable HTTP. */
export interface EverythingHttp {
  /** Its MCP endpoint, http://127.0.0.1:<port>/mcp */
  url: string;
  child: ChildProcess;
  /** Ends the process and waits for it. */
  stop(): Promise<void>;
}

/** Starts server-everything over Streamable HTTP on a free port; resolves once it listens. */
export async function startEverythingHttp(): Promise<EverythingHttp> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${log}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    },
  };
}
