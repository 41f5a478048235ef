import { createRequire } from 'node:module';
import type * as Commander from 'commander';

/**
 * commander, for every file of the CLI. It is CommonJS, and loaded with `require` rather than `import`: Node's ESM
 * loader spends a few milliseconds more on a CommonJS package (finding its named exports) than `require` does,
 * and every CLI start pays them, every stdio server's included.
 */
const commander = createRequire(import.meta.url)('commander') as typeof Commander;

export const { Command, CommanderError, InvalidArgumentError, Option } = commander;
export type Command = Commander.Command;
export type CommanderError = Commander.CommanderError;
export type InvalidArgumentError = Commander.InvalidArgumentError;
export type Option = Commander.Option;
