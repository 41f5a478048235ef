import { endpointOfCard, isCardTarget } from './card-target.js';
import { commandLine } from './detect.js';
import { isRegistryTarget, startOfRegistryEntry } from './registry-target.js';
import type { ConnectOptions } from './types.js';

/**
 * Where a connection to `target` starts: the target itself, or what a document it names says. A Server Card
 * gives its Streamable HTTP remote; a registry entry its remote with the headers it declares, or (allowed by
 * `allowPackageLaunch`) the command line of one of its packages, spoken to over stdio with its environment.
 */
export async function startOfTarget(
  target: string,
  options: ConnectOptions,
  signal?: AbortSignal,
): Promise<{ endpoint: string; options: ConnectOptions }> {
  if (isCardTarget(target)) return { endpoint: await endpointOfCard(target, signal), options };
  if (!isRegistryTarget(target)) return { endpoint: target, options };
  const start = await startOfRegistryEntry(target, {
    ...(options.allowPackageLaunch ? { allowPackageLaunch: true } : {}),
    ...(options.registryInputs ? { inputs: options.registryInputs } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
    token: options.token !== undefined,
    oauth: options.oauth !== undefined,
    ...(signal ? { signal } : {}),
  });
  if (start.kind === 'remote')
    return {
      endpoint: start.url,
      options: { ...options, headers: { ...start.headers, ...options.headers } },
    };
  return {
    endpoint: commandLine(start.command, start.args),
    options: { ...options, binding: 'stdio', env: { ...options.env, ...start.env } },
  };
}
