import { join, resolve } from 'node:path';
import type { Command } from './commander.js';
import { CliError } from './errors.js';
import { loadServedModule, nearestPackage } from './load-module.js';

/**
 * `mcplite server-json [module]`: the MCP registry's `server.json` (schema 2025-12-11) for a server published on
 * npm, printed for `mcp-publisher publish` (docs/discovery.md, "Publishing to the registry"). Its values come
 * from the module (`serverOptions` `name`, `title`, `description`, `card`) and its nearest package.json (`mcpName`,
 * the name the registry checks the npm package against; `name`, `version`, `description`, `repository`,
 * `homepage`); flags add remotes and the environment variables the server reads.
 */

/** The schema `server.json` declares. */
export const SERVER_JSON_SCHEMA =
  'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

const NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

interface ServerJsonFlags {
  remote?: string[];
  env?: string[];
  secretEnv?: string[];
}

/** Registers `server-json`. */
export function registerServerJson(program: Command): void {
  program
    .command('server-json')
    .description("print the MCP registry's server.json for a server published on npm")
    .argument('[module]', 'the tool module (default: the package in the current directory)')
    .option(
      '--remote <url>',
      'a Streamable HTTP endpoint where the server is hosted (repeatable)',
      collect,
      [],
    )
    .option('--env <name>', 'an environment variable the server reads (repeatable)', collect, [])
    .option('--secret-env <name>', 'a secret environment variable the server needs (repeatable)', collect, [])
    .action(async (module: string | undefined, o: ServerJsonFlags) => {
      process.stdout.write(`${JSON.stringify(await serverJson(module, o), null, 2)}\n`);
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The server.json of `module` (or of the package in the current directory). */
export async function serverJson(
  module: string | undefined,
  o: ServerJsonFlags,
): Promise<Record<string, unknown>> {
  const options = module ? (await loadServedModule(module)).serverOptions : {};
  const pkg = nearestPackage(module ? resolve(module) : join(process.cwd(), 'index.js'));
  if (!pkg) throw new CliError('No package.json with a name: server.json describes an npm package');
  const json = pkg.json;
  const card = typeof options.card === 'object' ? options.card : undefined;
  const name =
    str(json.mcpName) ?? card?.name ?? (options.name && NAME.test(options.name) ? options.name : undefined);
  if (!name || !NAME.test(name))
    throw new CliError(
      'server.json needs a reverse-DNS name (e.g. io.github.you/weather): set "mcpName" in package.json ' +
        '(the registry checks it against the npm package)',
    );
  if (pkg.version === 'latest' || pkg.version === '0.0.0')
    throw new CliError(`package.json version "${pkg.version}" cannot be published: give a real version`);
  const description = clip(options.description ?? str(json.description) ?? `The ${pkg.name} MCP server`);
  const repository = repositoryOf(json.repository);
  const websiteUrl = card?.websiteUrl ?? str(json.homepage);
  const env = [
    ...(o.env ?? []).map((n) => ({ name: n, isRequired: false, isSecret: false })),
    ...(o.secretEnv ?? []).map((n) => ({ name: n, isRequired: true, isSecret: true })),
  ];
  return {
    $schema: SERVER_JSON_SCHEMA,
    name,
    ...(options.title ? { title: options.title } : {}),
    description,
    version: pkg.version,
    ...(repository ? { repository } : {}),
    ...(websiteUrl ? { websiteUrl } : {}),
    packages: [
      {
        registryType: 'npm',
        identifier: pkg.name,
        version: pkg.version,
        runtimeHint: 'npx',
        transport: { type: 'stdio' },
        ...(env.length ? { environmentVariables: env } : {}),
      },
    ],
    ...(o.remote?.length
      ? { remotes: o.remote.map((url) => ({ type: 'streamable-http', url: httpUrl(url) })) }
      : {}),
  };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The registry's 100 characters at most. */
function clip(text: string): string {
  return text.length <= 100 ? text : `${text.slice(0, 99)}…`;
}

/** package.json's `repository` (a string or `{ url }`) as the registry's `{ url, source }`, for GitHub and GitLab. */
function repositoryOf(value: unknown): { url: string; source: string } | undefined {
  const raw = typeof value === 'string' ? value : str((value as { url?: unknown } | undefined)?.url);
  if (!raw) return undefined;
  const url = raw
    .replace(/^git\+/, '')
    .replace(/\.git$/, '')
    .replace(/^github:/, 'https://github.com/');
  const m = /^https:\/\/(github|gitlab)\.com\/[^\s]+$/.exec(url);
  return m ? { url, source: m[1]! } : undefined;
}

function httpUrl(url: string): string {
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new CliError(`--remote ${url} is not an http(s) URL`);
  return url;
}
