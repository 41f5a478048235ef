#!/usr/bin/env node
/**
 * The `mcplite` command. This file only wires commands together; each command lives in its own file.
 */
// First, so that the modules loaded after it are compiled once and cached (Node 22+).
import './compile-cache.js';
import { MissingPeerError } from '../optional-peers.js';
import { Command, CommanderError } from './commander.js';
import { CliError } from './errors.js';
import { packageInfo } from './locate.js';
import { printable } from './render.js';

type Register = (program: Command) => void;

/**
 * Each command's file, loaded only when that command runs: a server started by its client (every stdio server)
 * or by a cold platform pays for `serve` alone, not for the client, the gateway and the inspector.
 * Help, the version and an unknown name load them all (commander lists and suggests from what is registered).
 */
const COMMAND_FILES: readonly { names: readonly string[]; load: () => Promise<Register> }[] = [
  { names: ['serve'], load: async () => (await import('./serve-command.js')).registerServe },
  { names: ['dev'], load: async () => (await import('./dev-command.js')).registerDev },
  { names: ['worker'], load: async () => (await import('./worker-command.js')).registerWorker },
  {
    names: ['tools', 'skills', 'call', 'redeem', 'cancel', 'prompts', 'prompt', 'lock'],
    load: async () => (await import('./client-commands.js')).registerClientCommands,
  },
  { names: ['proxy'], load: async () => (await import('./proxy-command.js')).registerProxy },
  { names: ['inspect'], load: async () => (await import('./inspect-command.js')).registerInspect },
  { names: ['server-json'], load: async () => (await import('./server-json-command.js')).registerServerJson },
  { names: ['login', 'logout'], load: async () => (await import('./login-command.js')).registerLogin },
];

/** The command files the arguments need: the one naming the command, or every one when none is named. */
function commandFilesFor(argv: readonly string[]): typeof COMMAND_FILES {
  const named = argv[2];
  const one = COMMAND_FILES.find((file) => named !== undefined && file.names.includes(named));
  return one ? [one] : COMMAND_FILES;
}

const program = new Command('mcplite')
  .description('Define LLM tools once, serve them over MCP-lite HTTP, MCP-lite gRPC and MCP')
  .version(packageInfo().version)
  // Errors come back here instead of exiting inside commander, so that every failure gets one exit policy.
  .exitOverride();
for (const register of await Promise.all(commandFilesFor(process.argv).map((file) => file.load()))) {
  register(program);
}

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
