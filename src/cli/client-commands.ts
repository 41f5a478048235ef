import { writeFile } from 'node:fs/promises';
import {
  bindingOf,
  type CallOutcome,
  type Client,
  type ConnectOptions,
  connect,
  createLock,
  listSkills,
  McpLiteError,
  type PromiseProgress,
  readSkill,
} from '../client/index.js';
import { isRegistryTarget } from '../client/registry-target.js';
import { unhandledOutcome } from '../core/outcomes.js';
import { closestName } from '../core/suggest.js';
import { askOnTerminal } from './ask.js';
import { coerceArguments, parseArgsJson, stringArguments } from './coerce.js';
import { type Command, Option } from './commander.js';
import { CliError } from './errors.js';
import { cliOAuth, type OAuthFlags, withOAuthFlags } from './oauth-options.js';
import { otelWanted, startOtel } from './otel.js';
import { integer } from './parse.js';
import {
  formatValue,
  isFancy,
  outcomeJson,
  printable,
  progressLine,
  promptsTable,
  renderedPromptText,
  style,
  toolsTable,
} from './render.js';
import { moduleTargetError } from './target.js';

/** Exit codes of `call` and `redeem`: 0 only for an answer, so scripts can tell the outcomes apart. */
export const EXIT = {
  answer: 0,
  failure: 1,
  error: 1,
  usage: 2,
  promise: 3,
  elicitation: 4,
  resource: 5,
} as const;

interface TargetOptions extends OAuthFlags {
  binding?: ConnectOptions['binding'];
  token?: string;
  header?: string[];
  lock?: string;
  timeout?: number;
  allowPackageLaunch?: boolean;
  input?: string[];
}

/** Registers `tools`, `skills`, `call`, `redeem`, `cancel`, `prompts`, `prompt` and `lock`: the client side of the CLI. */
export function registerClientCommands(program: Command): void {
  withTarget(
    program.command('tools').description('list the tools of a server (any binding, or an MCP command line)'),
  )
    .option('--json', 'print {"tools":[...]}')
    .action((target: string, o: TargetOptions & { json?: boolean }) =>
      run(target, o, async (client) => {
        const tools = await client.listTools();
        process.stdout.write(
          o.json ? `${JSON.stringify({ tools }, null, 2)}\n` : toolsTable(tools, isFancy(process.stdout)),
        );
      }),
    );

  withTarget(program.command('skills').description("list a server's Agent Skills, or print one's SKILL.md"))
    .argument('[name]', 'the skill to print')
    .option('--json', 'print {"skills":[...]}')
    .action((target: string, name: string | undefined, o: TargetOptions & { json?: boolean }) =>
      run(target, o, async (client, signal) => {
        if (name !== undefined) {
          process.stdout.write(printable(await readSkill(client, name, 'SKILL.md', { signal })));
          return;
        }
        const skills = await listSkills(client, { signal });
        process.stdout.write(
          o.json
            ? `${JSON.stringify({ skills }, null, 2)}\n`
            : skills
                .map((s) => `${printable(s.name, false)}  ${printable(s.description ?? '', false)}\n`)
                .join(''),
        );
      }),
    );

  withTarget(
    program.command('call').description('call a tool; key=value arguments are typed by its input schema'),
  )
    .argument('<tool>', 'the tool to call')
    .argument('[args...]', 'arguments as key=value')
    .option('--args <json>', 'arguments as a JSON object (key=value pairs are laid over it)')
    .option('--json', 'print one JSON object {"outcome": ...}')
    .option('--no-redeem', 'return a promise as it is instead of waiting for it')
    .option(
      '--answer <json>',
      "answer the tool's question (an elicitation) with these values, without a terminal",
    )
    .option('--decline', "decline the tool's question (an elicitation), without a terminal")
    .action((target: string, tool: string, pairs: string[], o: TargetOptions & CallFlags) =>
      run(target, o, async (client, signal) => {
        const tools = await client.listTools({ signal });
        const info = tools.find((t) => t.name === tool);
        if (!info)
          throw unknownTool(
            tool,
            tools.map((t) => t.name),
          );
        const args = coerceArguments(pairs, info.inputSchema, parseArgsJson(o.args));
        await callAndPrint(o, signal, (opts) => client.call(tool, args, opts));
      }),
    );

  withTarget(program.command('redeem').description('redeem a promise token'))
    .argument('<token>', 'the promise token')
    .option('--json', 'print one JSON object {"outcome": ...}')
    .option('--no-redeem', 'ask once instead of waiting until it settles')
    .option(
      '--answer <json>',
      "answer the tool's question (an elicitation) with these values, without a terminal",
    )
    .option('--decline', "decline the tool's question (an elicitation), without a terminal")
    .action((target: string, token: string, o: TargetOptions & CallFlags) =>
      run(target, o, (client, signal) => callAndPrint(o, signal, (opts) => client.redeem(token, opts))),
    );

  withTarget(program.command('cancel').description('cancel a promise'))
    .argument('<token>', 'the promise token')
    .option('--json', 'print the result as JSON')
    .action((target: string, token: string, o: TargetOptions & { json?: boolean }) =>
      run(target, o, async (client, signal) => {
        const result = await client.cancel(token, { signal });
        process.stdout.write(
          o.json
            ? `${JSON.stringify(result)}\n`
            : `${result.cancelled ? 'cancelled' : 'not cancelled'}${result.status ? ` (status: ${printable(String(result.status), false)})` : ''}\n`,
        );
      }),
    );

  withTarget(
    program.command('prompts').description('list the prompts of a server (MCP, MCP-lite HTTP or gRPC)'),
  )
    .option('--json', 'print {"prompts":[...]}')
    .action((target: string, o: TargetOptions & { json?: boolean }) =>
      run(target, o, async (client, signal) => {
        const prompts = await client.listPrompts({ signal });
        process.stdout.write(
          o.json
            ? `${JSON.stringify({ prompts }, null, 2)}\n`
            : promptsTable(prompts, isFancy(process.stdout)),
        );
      }),
    );

  withTarget(program.command('prompt').description('render a prompt; key=value arguments are strings'))
    .argument('<name>', 'the prompt to render')
    .argument('[args...]', 'arguments as key=value')
    .option('--json', 'print the rendered prompt {"description"?, "messages"} as JSON')
    .action((target: string, name: string, pairs: string[], o: TargetOptions & { json?: boolean }) =>
      run(target, o, async (client, signal) => {
        const rendered = await client.getPrompt(name, stringArguments(pairs), { signal });
        process.stdout.write(
          o.json
            ? `${JSON.stringify(rendered, null, 2)}\n`
            : renderedPromptText(rendered, isFancy(process.stdout)),
        );
      }),
    );

  withTarget(
    program.command('lock').description("pin a server's tools (names, descriptions, schemas) in a lockfile"),
  )
    .requiredOption('-o, --output <file>', 'where to write the lockfile')
    .action((target: string, o: TargetOptions & { output: string }) =>
      run(target, { ...o, lock: undefined }, async (client, signal) => {
        const lock = createLock(await client.listTools({ signal }), target);
        await writeFile(o.output, `${JSON.stringify(lock, null, 2)}\n`);
        process.stdout.write(
          `locked ${Object.keys(lock.tools).length} tools (${lock.hash}) in ${o.output}\n`,
        );
      }),
    );
}

interface CallFlags {
  args?: string;
  json?: boolean;
  redeem?: boolean;
  /** `--answer <json>`: the values that answer the tool's first question, given ahead (scripts, pipes). */
  answer?: string;
  /** `--decline`: decline the tool's first question. */
  decline?: boolean;
}

/** The answer given on the command line (`--answer`, `--decline`), checked before any call. */
function answerGiven(o: CallFlags): Record<string, unknown> | 'decline' | undefined {
  if (o.answer !== undefined && o.decline) throw new CliError('give --answer or --decline, not both');
  if (o.decline) return 'decline';
  if (o.answer === undefined) return undefined;
  let values: unknown;
  try {
    values = JSON.parse(o.answer);
  } catch (err) {
    throw new CliError(`--answer must be a JSON object: ${(err as Error).message}`, 2, { cause: err });
  }
  if (typeof values !== 'object' || values === null || Array.isArray(values))
    throw new CliError('--answer must be a JSON object, e.g. --answer \'{"confirm": true}\'', 2);
  return values as Record<string, unknown>;
}

/** The signals that stop a client command: it aborts, closes its connection (ending a stdio child) and exits. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Adds the target as the command's first argument (arguments declared after it follow it) and its options. */
function withTarget(command: Command): Command {
  return withOAuthFlags(
    command
      .argument(
        '<target>',
        'MCP-lite URL, MCP URL, grpc://host:port, Webtools URL, or an MCP server command line',
      )
      .addOption(
        new Option('--binding <binding>', 'skip detection').choices([
          'mcp-lite-http',
          'grpc',
          'mcp-grpc',
          'mcp',
          'stdio',
          'webtools',
        ]),
      )
      .option('--token <token>', 'bearer token (default: $MCPLITE_TOKEN)')
      .option('-H, --header <header...>', 'extra header "Name: value" (repeatable)')
      .option('--lock <file>', 'refuse a server whose locked tools changed; hide tools added since')
      .option(
        '--timeout <ms>',
        'give up after this many milliseconds, connecting and promises included',
        integer(1),
      )
      .option(
        '--allow-package-launch',
        'a registry entry (server.json) with no usable remote: run its package (npx, uvx, docker)',
      )
      .option(
        '--input <name=value...>',
        "a registry entry's value for a {variable}, header, argument or environment variable (repeatable)",
      ),
  );
}

/**
 * Connects, runs one command, closes. `--timeout` bounds the whole command, connecting included; Ctrl-C and
 * SIGTERM abort it (cancelling a promise being waited for). A stdio server the client spawned is ended on the
 * way out whichever way the command ends (the client also kills it when the process exits).
 */
async function run(
  target: string,
  o: TargetOptions,
  body: (client: Client, signal: AbortSignal) => Promise<void>,
) {
  const notATarget = moduleTargetError(target);
  if (notATarget) throw notATarget;
  // A reader that went away (`| head`) ends the command quietly, as for any Unix tool.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  const controller = new AbortController();
  const { signal } = controller;
  const onSignal = (name: NodeJS.Signals) =>
    controller.abort(new McpLiteError('cancelled', `Interrupted (${name})`));
  for (const name of STOP_SIGNALS) process.once(name, onSignal);
  // A timer of our own, held until the command ends (an `AbortSignal.timeout` may be collected while waited on).
  const deadline = o.timeout
    ? setTimeout(
        () => controller.abort(new DOMException(`Timed out after ${o.timeout} ms`, 'TimeoutError')),
        o.timeout,
      )
    : undefined;
  // OTEL_EXPORTER_OTLP_ENDPOINT set: the command's call is a CLIENT span, exported before the CLI exits.
  const otel = otelWanted(undefined) ? await startOtel() : undefined;
  let client: Client | undefined;
  // Without a static token, a server that asks for a sign-in gets one (OAuth, tokens kept per server).
  const options = connectOptions(o);
  // A registry entry kept as a file may still name a remote that asks for one.
  const signIn =
    options.token || (bindingOf(target) === 'stdio' && !isRegistryTarget(target))
      ? undefined
      : cliOAuth(o, signal);
  try {
    // A Server Card URL and a registry entry are resolved by `connect` itself.
    client = await connectWithin(
      target,
      signIn ? { ...options, oauth: signIn.oauth } : options,
      signal,
      o.timeout,
    );
    await body(client, signal);
  } catch (err) {
    throw toCliError(err);
  } finally {
    clearTimeout(deadline);
    for (const name of STOP_SIGNALS) process.off(name, onSignal);
    await client?.close().catch(() => {});
    signIn?.close();
    await otel?.shutdown();
  }
}

/**
 * Connects, or gives up when `signal` aborts: a connection that comes later is closed, and a stdio child that
 * never answers is ended when the CLI exits (the client reaps what it spawned, `client/child-reaper.ts`).
 */
function connectWithin(
  target: string,
  options: ConnectOptions,
  signal: AbortSignal,
  timeout?: number,
): Promise<Client> {
  const connecting = connect(target, options);
  const failure = (err: unknown) =>
    (signal.reason as { name?: string } | undefined)?.name === 'TimeoutError'
      ? new CliError(`${target} did not answer within ${timeout} ms (--timeout) while connecting`, EXIT.error)
      : err;
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      void connecting.then((late) => late.close()).catch(() => {});
      reject(failure(signal.reason));
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    connecting.then(
      (client) => {
        signal.removeEventListener('abort', onAbort);
        resolve(client);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? failure(err) : err);
      },
    );
  });
}

function connectOptions(o: TargetOptions): ConnectOptions {
  const headers: Record<string, string> = {};
  for (const h of o.header ?? []) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw new CliError(`--header expects "Name: value", got "${h}"`);
    headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
  }
  const token = o.token ?? process.env.MCPLITE_TOKEN;
  return {
    ...(o.binding ? { binding: o.binding } : {}),
    ...(token ? { token } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(o.lock ? { lock: o.lock } : {}),
    ...(o.allowPackageLaunch ? { allowPackageLaunch: true } : {}),
    ...(o.input?.length ? { registryInputs: registryInputs(o.input) } : {}),
    stderr: 'inherit',
  };
}

/** `--input name=value` flags as the registry entry's inputs by name. */
function registryInputs(flags: string[]): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    if (eq <= 0) throw new CliError(`--input expects "name=value", got "${flag.split('=')[0]}"`);
    inputs[flag.slice(0, eq)] = flag.slice(eq + 1);
  }
  return inputs;
}

/**
 * Runs a call with partials printed as they come and a live progress line on a terminal while a promise is
 * redeemed, answers elicitations at the terminal, then prints the outcome and sets the exit code.
 */
async function callAndPrint(
  o: CallFlags & TargetOptions,
  signal: AbortSignal,
  start: (opts: Parameters<Client['call']>[2]) => Promise<CallOutcome>,
): Promise<void> {
  const fancy = isFancy(process.stderr);
  const partials: unknown[] = [];
  const started = Date.now();
  let progress: PromiseProgress | undefined;
  let ticker: NodeJS.Timeout | undefined;
  // The handler's latest progress message, kept on the live line while a promise is waited on.
  let note = '';
  const draw = () => {
    if (progress) process.stderr.write(`\r\x1b[2K${progressLine(progress, Date.now(), started)}${note}`);
  };
  const clear = () => {
    if (ticker) clearInterval(ticker);
    ticker = undefined;
    if (progress && fancy) process.stderr.write('\r\x1b[2K');
  };
  const opts = {
    signal,
    ...(o.redeem === false ? { redeem: false } : {}),
    // Partials and progress go to stderr, as they come: stdout carries the answer alone, for a pipe to read.
    onPartial: (value: unknown) => {
      if (o.json) {
        partials.push(value);
        return;
      }
      const text = formatValue(partialText(value));
      if (fancy && progress) {
        note = `  ${printable(text.split('\n')[0] ?? '', false).slice(0, 80)}`;
        process.stderr.write('\r\x1b[2K');
      }
      process.stderr.write(`${text}\n`);
      if (fancy && progress) draw();
    },
    onPromise: (p: PromiseProgress) => {
      progress = p;
      if (fancy && !ticker) ticker = setInterval(draw, 200);
      if (fancy) draw();
    },
  };
  // Given ahead, it answers the first question; a question after that is asked as any other.
  let given = answerGiven(o);
  let outcome: CallOutcome;
  try {
    outcome = await start(opts);
    while (outcome.type === 'elicitation') {
      clear();
      if (given !== undefined) {
        const answer = given;
        given = undefined;
        outcome = answer === 'decline' ? await outcome.decline(opts) : await outcome.answer(answer, opts);
        continue;
      }
      if (!process.stdin.isTTY || !process.stderr.isTTY) {
        if (o.json) process.stdout.write(`${JSON.stringify(outcomeJson(outcome))}\n`);
        throw new CliError(
          `the tool needs input ("${printable(outcome.message)}"): run it on a terminal to answer, or answer on the ` +
            `command line with --answer '${exampleAnswer(outcome.requestedSchema)}' (or --decline)`,
          EXIT.elicitation,
        );
      }
      outcome = await outcome.answer(await askOnTerminal(outcome), opts);
    }
  } finally {
    clear();
  }
  printOutcome(outcome, o.json === true, partials);
}

/** A `--answer` JSON with the requested fields, for the error that suggests it. */
function exampleAnswer(schema: unknown): string {
  const properties =
    (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {};
  const example = Object.fromEntries(
    Object.entries(properties).map(([key, prop]) => [
      key,
      prop.type === 'boolean' ? true : prop.type === 'number' || prop.type === 'integer' ? 0 : '…',
    ]),
  );
  return printable(JSON.stringify(example), false);
}

function printOutcome(outcome: CallOutcome, json: boolean, partials: unknown[]): void {
  if (json) process.stdout.write(`${JSON.stringify(outcomeJson(outcome, partials))}\n`);
  const s = style(isFancy(process.stderr));
  switch (outcome.type) {
    case 'answer':
      if (!json) process.stdout.write(`${formatValue(outcome.value)}\n`);
      return;
    case 'failure':
      if (!json)
        process.stderr.write(
          `${s.red('failure')}: ${printable(outcome.message)}${outcome.code ? ` (${printable(outcome.code, false)})` : ''}\n`,
        );
      process.exitCode = EXIT.failure;
      return;
    case 'promise':
      if (!json) {
        const token = printable(outcome.token, false);
        const eta = outcome.estimatedCompletion ? printable(outcome.estimatedCompletion, false) : undefined;
        process.stdout.write(`${token}\n`);
        process.stderr.write(
          `promise${eta ? `, expected ${eta}` : ''}; redeem it with: mcplite redeem <target> ${token}\n`,
        );
      }
      process.exitCode = EXIT.promise;
      return;
    case 'request-for-more-resource':
      if (!json)
        process.stderr.write(
          `${s.red('needs more resource')}: ${printable(`${outcome.message} (${outcome.resource}: requested ${outcome.requested}${outcome.granted !== undefined ? `, granted ${outcome.granted}` : ''})`)}\n`,
        );
      process.exitCode = EXIT.resource;
      return;
    case 'elicitation':
      process.exitCode = EXIT.elicitation;
      return;
    default:
      unhandledOutcome(outcome);
  }
}

/** MCP progress (`{progress, total?, message?}`) reads as its message; other partials as they are. */
function partialText(value: unknown): unknown {
  const v = value as { progress?: unknown; message?: unknown } | null;
  if (
    typeof v === 'object' &&
    v !== null &&
    typeof v.progress === 'number' &&
    typeof v.message === 'string'
  ) {
    return v.message;
  }
  return value;
}

function unknownTool(name: string, names: string[]): CliError {
  const suggestion = closestName(name, names);
  return new CliError(
    `unknown tool "${name}"${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
    EXIT.error,
  );
}

/** Any error as one line (a lock mismatch keeps its diff: that is the point of it). */
function toCliError(err: unknown): CliError {
  if (err instanceof CliError) return err;
  if (err instanceof McpLiteError) {
    // A server that could not be reached: where, and why, in one line.
    if (err.data?.reason === 'unreachable' && typeof err.data.cause === 'string')
      return new CliError(
        `cannot reach ${String(err.data.target ?? 'the server')}: ${err.data.cause}`,
        EXIT.error,
      );
    const suggestion = typeof err.data?.suggestion === 'string' ? ` ${err.data.suggestion}` : '';
    const message = err.data?.reason === 'lock_mismatch' ? err.message : (err.message.split('\n')[0] ?? '');
    return new CliError(
      `${message}${suggestion && !message.includes(suggestion.trim()) ? suggestion : ''}`,
      EXIT.error,
    );
  }
  return new CliError(err instanceof Error ? err.message : String(err), EXIT.error);
}
