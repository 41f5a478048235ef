import { REGISTRY_SERVER_SCHEMA } from '../core/discovery/registry-server-schema.js';
import { McpLiteError } from '../core/errors.js';
import { type DocumentKind, readDiscoveryDocument } from './discovery-document.js';

/**
 * A registry entry (the MCP registry's `server.json`) as where a connection starts (docs/discovery.md, "Starting
 * from a registry entry"): the one resolver of such entries, used by `connect()`, the CLI and the gateway's
 * `"registry"` entries. A remote comes first: its Streamable HTTP URL is the endpoint, with the headers the entry
 * declares. Only when no remote is usable, and only when the caller opted in (`allowPackageLaunch`), is a package
 * run: an npm package with `npx`, a PyPI one with `uvx`, an OCI image with `docker run`, over stdio. A registry
 * entry is somebody else's code; running it is never a default.
 */

/** What a registry entry needs from the caller to be started. */
export interface RegistryStartOptions {
  /** Run a package of the entry when it lists no usable remote. Default false: such an entry is refused. */
  allowPackageLaunch?: boolean;
  /**
   * Values by name for what the entry leaves open: a URL's `{variables}`, a remote's headers, a package's
   * arguments (by `valueHint` for a positional one, by `name` for a named one) and environment variables.
   */
  inputs?: Record<string, string>;
  /** A package's environment variables, taken before `inputs` and the process's own environment. */
  env?: Record<string, string>;
  /** Headers the caller sends anyway (a required header of the entry given here is not asked for). */
  headers?: Record<string, string>;
  /** Whether the caller sends a bearer token of its own (the `Authorization` header). */
  token?: boolean;
  /** Whether the caller signs in with OAuth (which gives `Authorization` when the entry's cannot be filled in). */
  oauth?: boolean;
  signal?: AbortSignal;
}

/** How a registry entry is started: a remote to connect to, or a package to run over stdio. */
export type RegistryStart =
  | { kind: 'remote'; url: string; headers: Record<string, string> }
  | { kind: 'package'; command: string; args: string[]; env: Record<string, string> };

/** The registry entry as a document a connection starts from. */
const ENTRY: DocumentKind = {
  what: 'registry entry',
  mediaTypes: [],
  maxBytes: 256 * 1024,
  timeoutMs: 15_000,
  schema: REGISTRY_SERVER_SCHEMA,
  schemaName: 'the registry server.json schema',
};

/**
 * Whether `target` names a registry entry: an http(s) URL or a local path (no spaces, so never a command line)
 * whose file name is or ends in `server.json`.
 */
export function isRegistryTarget(target: string): boolean {
  return /^(?:https?:\/\/)?[^\s?#]*server\.json(?:[?#][^\s]*)?$/i.test(target);
}

/** The input shapes of the schema the resolver reads (validated before it reads them). */
interface Input {
  value?: string;
  default?: string;
  isRequired?: boolean;
  variables?: Record<string, Input>;
}
interface Argument extends Input {
  type: 'positional' | 'named';
  name?: string;
  valueHint?: string;
  isRepeated?: boolean;
}
interface Remote {
  type: string;
  url: string;
  headers?: (Input & { name: string })[];
  variables?: Record<string, Input>;
}
interface Package {
  registryType: string;
  identifier: string;
  version?: string;
  registryBaseUrl?: string;
  runtimeHint?: string;
  runtimeArguments?: Argument[];
  packageArguments?: Argument[];
  environmentVariables?: (Input & { name: string })[];
  transport: { type: string };
}

/** Why an entry's remote or package cannot be started: said by name, never with a value. */
class NotStartable extends Error {}

/**
 * How to start the registry entry at `source` (an http(s) URL or a local path). Refused (`unavailable`) when it
 * cannot be read or nothing in it can be started as asked (each reason named); `invalid_params` when the registry
 * schema refuses it.
 */
export async function startOfRegistryEntry(
  source: string,
  options: RegistryStartOptions = {},
): Promise<RegistryStart> {
  const entry = await readDiscoveryDocument(source, ENTRY, options.signal);
  const reasons: string[] = [];
  for (const remote of (entry.remotes ?? []) as Remote[]) {
    try {
      return remoteStart(remote, options);
    } catch (err) {
      if (!(err instanceof NotStartable)) throw err;
      reasons.push(err.message);
    }
  }
  const packages = (entry.packages ?? []) as Package[];
  if (packages.length > 0 && !options.allowPackageLaunch)
    reasons.push(
      `its package${packages.length > 1 ? 's run' : ' runs'} only when allowed (allowPackageLaunch, --allow-package-launch, "allowPackageLaunch": true)`,
    );
  else
    for (const pkg of packages) {
      try {
        return packageStart(pkg, options);
      } catch (err) {
        if (!(err instanceof NotStartable)) throw err;
        reasons.push(err.message);
      }
    }
  if (reasons.length === 0) reasons.push('it lists no remote and no package');
  throw new McpLiteError(
    'unavailable',
    `The registry entry at ${source} cannot be started: ${reasons.join('; ')}`,
  );
}

function remoteStart(remote: Remote, options: RegistryStartOptions): RegistryStart {
  if (remote.type !== 'streamable-http')
    throw new NotStartable(`its ${remote.type} remote is not a transport mcplite's client speaks`);
  const url = substitute(remote.url, remote.variables, options.inputs, `the remote ${remote.url}`);
  if (!/^https?:\/\/[^\s]+$/i.test(url))
    throw new NotStartable(`its remote ${remote.url} is not an http(s) URL`);
  const given = new Set(Object.keys(options.headers ?? {}).map((name) => name.toLowerCase()));
  if (options.token) given.add('authorization');
  const headers: Record<string, string> = {};
  for (const header of remote.headers ?? []) {
    if (given.has(header.name.toLowerCase())) continue;
    // A caller that signs in gets its Authorization from the sign-in when the entry's own cannot be filled in.
    const signsIn = options.oauth === true && header.name.toLowerCase() === 'authorization';
    let value: string | undefined;
    try {
      value = inputValue(header, options.inputs?.[header.name], `the header ${header.name}`, options.inputs);
    } catch (err) {
      if (signsIn && err instanceof NotStartable) continue;
      throw err;
    }
    if (value !== undefined) headers[header.name] = value;
    else if (header.isRequired && !signsIn)
      throw new NotStartable(`its remote needs the header ${header.name} (give it as a header or an input)`);
  }
  return { kind: 'remote', url, headers };
}

/** How each registry type's package is run, and the runtimes an entry may hint at for it. */
const RUNNERS: Record<string, { runtimes: readonly string[]; spec: (pkg: Package) => string[] }> = {
  npm: {
    runtimes: ['npx', 'bunx'],
    spec: (pkg) => [
      ...(pkg.registryBaseUrl && !/^https:\/\/registry\.npmjs\.org\/?$/.test(pkg.registryBaseUrl)
        ? ['--registry', pkg.registryBaseUrl]
        : []),
      pkg.version ? `${pkg.identifier}@${pkg.version}` : pkg.identifier,
    ],
  },
  pypi: {
    runtimes: ['uvx'],
    spec: (pkg) => [
      ...(pkg.registryBaseUrl && !/^https:\/\/pypi\.org\/?/.test(pkg.registryBaseUrl)
        ? ['--index-url', pkg.registryBaseUrl]
        : []),
      pkg.version ? `${pkg.identifier}==${pkg.version}` : pkg.identifier,
    ],
  },
  oci: {
    runtimes: ['docker', 'podman'],
    // An image reference that carries no tag or digest takes the version as its tag.
    spec: (pkg) => [
      pkg.version && !/[:@][^/]*$/.test(pkg.identifier) ? `${pkg.identifier}:${pkg.version}` : pkg.identifier,
    ],
  },
};

function packageStart(pkg: Package, options: RegistryStartOptions): RegistryStart {
  const runner = RUNNERS[pkg.registryType];
  if (!runner)
    throw new NotStartable(`its ${pkg.registryType} package is not a kind mcplite runs (npm, pypi, oci)`);
  if (pkg.transport.type !== 'stdio')
    throw new NotStartable(
      `its ${pkg.registryType} package serves ${pkg.transport.type}, which it listens for: start it yourself and connect to its URL`,
    );
  const command = pkg.runtimeHint ?? runner.runtimes[0]!;
  if (!runner.runtimes.includes(command))
    throw new NotStartable(
      `its ${pkg.registryType} package asks for the runtime ${command}, not one mcplite runs`,
    );
  const env: Record<string, string> = {};
  for (const variable of pkg.environmentVariables ?? []) {
    const given =
      options.env?.[variable.name] ??
      options.inputs?.[variable.name] ??
      (typeof process === 'undefined' ? undefined : process.env[variable.name]);
    const value = inputValue(variable, given, `the environment variable ${variable.name}`, options.inputs);
    if (value !== undefined) env[variable.name] = value;
    else if (variable.isRequired)
      throw new NotStartable(`its package needs the environment variable ${variable.name}`);
  }
  const runtimeArgs = pkg.runtimeArguments
    ? words(pkg.runtimeArguments, options.inputs)
    : command === 'npx'
      ? ['-y']
      : [];
  // A container sees only the variables it is given: each is passed by name, its value from the runner's environment.
  const containerEnv = pkg.registryType === 'oci' ? Object.keys(env).flatMap((name) => ['-e', name]) : [];
  const args = [
    ...(pkg.registryType === 'oci' ? ['run', '-i', '--rm'] : []),
    ...runtimeArgs,
    ...containerEnv,
    ...runner.spec(pkg),
    ...words(pkg.packageArguments ?? [], options.inputs),
  ];
  return { kind: 'package', command, args, env };
}

/**
 * The words of a list of arguments. A positional argument without a value is left out unless required; so is a
 * named one (its flag goes with its value, never alone).
 */
function words(list: Argument[], inputs: Record<string, string> | undefined): string[] {
  const out: string[] = [];
  for (const argument of list) {
    const label =
      argument.type === 'named' ? argument.name! : (argument.valueHint ?? 'a positional argument');
    const value = inputValue(argument, inputs?.[label], `the argument ${label}`, inputs);
    if (value === undefined) {
      if (argument.isRequired)
        throw new NotStartable(`its package needs the argument ${label} (give it as an input)`);
      continue;
    }
    if (argument.type === 'named') out.push(argument.name!, value);
    else out.push(value);
  }
  return out;
}

/** An input's value: the caller's, else the entry's own value, else its default; `{variables}` filled in. */
function inputValue(
  input: Input,
  given: string | undefined,
  what: string,
  inputs?: Record<string, string>,
): string | undefined {
  const value = given ?? input.value ?? input.default;
  return value === undefined ? undefined : substitute(value, input.variables, inputs, what);
}

/** `text` with each `{name}` replaced by the caller's input, else the variable's value or default; refused if none. */
function substitute(
  text: string,
  variables: Record<string, Input> | undefined,
  inputs: Record<string, string> | undefined,
  what: string,
): string {
  return text.replace(/\{([^{}\s]+)\}/g, (_, name: string) => {
    const variable = variables?.[name];
    const value = inputs?.[name] ?? variable?.value ?? variable?.default;
    if (value === undefined)
      throw new NotStartable(`${what} needs a value for {${name}} (give it as an input)`);
    return value;
  });
}
