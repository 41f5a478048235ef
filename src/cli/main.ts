#!/usr/bin/env node
/**
 * The `mcplite` command. This file only wires commands together; each command lives in its own file.
 */
import { Command, CommanderError } from 'commander';
import { MissingPeerError } from '../optional-peers.js';
import { registerClientCommands } from './client-commands.js';
import { registerDev } from './dev-command.js';
import { CliError } from './errors.js';
import { registerInspect } from './inspect-command.js';
import { packageInfo } from './locate.js';
import { registerLogin } from './login-command.js';
import { registerProxy } from './proxy-command.js';
import { printable } from './render.js';
import { registerServe } from './serve-command.js';
import { registerWorker } from './worker-command.js';

const program = new Command('mcplite')
  .description('Define LLM tools once, serve them over MCP-lite HTTP, MCP-lite gRPC and MCP')
  .version(packageInfo().version)
  // Errors come back here instead of exiting inside commander, so that every failure gets one exit policy.
  .exitOverride();
registerServe(program);
registerDev(program);
registerWorker(program);
registerClientCommands(program);
registerProxy(program);
registerInspect(program);
registerLogin(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Commander has printed its message already; a usage error is exit code 2 by convention.
    process.exit(err.exitCode === 0 ? 0 : 2);
  }
  if (err instanceof MissingPeerError) {
    process.stderr.write(`mcplite: ${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof CliError) {
    // Messages carry what servers sent (tool errors, names): shown, never obeyed by the terminal.
    process.stderr.write(`mcplite: ${printable(err.message)}\n`);
    process.exit(err.exitCode);
  }
  process.stderr.write(`mcplite: unexpected error: ${printable((err as Error)?.stack ?? String(err))}\n`);
  process.exit(1);
}
