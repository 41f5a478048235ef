import { isAppOnly } from '../core/apps/ui.js';
import { McpLiteError } from '../core/errors.js';
import { unhandledOutcome } from '../core/outcomes.js';
import type { Client } from './client.js';
import type { CallOptions, CallOutcome, ElicitationOutcome } from './types.js';

/** Options shared by the AI SDK and LangChain adapters. */
export interface AdapterOptions {
  /** Only these tools (default: every tool but the system tools redeem and cancel). */
  include?: readonly string[];
  /**
   * Asks the user an elicitation's questions; resolves to the answers, or undefined to decline. Without it, a
   * tool that needs user input fails with a readable error.
   */
  onElicitation?: (outcome: ElicitationOutcome) => Promise<Record<string, unknown> | undefined>;
  /** Per-call options (timeout, lock...) added to every call. */
  callOptions?: Omit<CallOptions, 'signal'>;
}

/**
 * Calls a tool for a framework: promises are redeemed (the client's default), elicitations go to
 * `onElicitation`, and anything but an answer becomes an Error the framework reports to the model.
 */
export async function callForModel(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal | undefined,
  options: AdapterOptions,
): Promise<unknown> {
  const opts: CallOptions = { ...options.callOptions, ...(signal ? { signal } : {}) };
  let outcome: CallOutcome = await client.call(name, args, opts);
  while (outcome.type === 'elicitation') {
    if (!options.onElicitation)
      throw new McpLiteError('invalid_request', `The tool needs user input: ${outcome.message}`);
    const values = await options.onElicitation(outcome);
    outcome = values === undefined ? await outcome.decline(opts) : await outcome.answer(values, opts);
  }
  switch (outcome.type) {
    case 'answer':
      return outcome.value;
    case 'failure':
      throw new Error(`${outcome.message}${outcome.code ? ` (${outcome.code})` : ''}`);
    case 'request-for-more-resource':
      throw new Error(`${outcome.message} (${outcome.resource}: needs ${outcome.requested})`);
    case 'promise':
      throw new Error(`Still running; redeem ${outcome.token}`);
    default:
      return unhandledOutcome(outcome);
  }
}

/**
 * The tools an adapter offers: never an app-only tool (MCP Apps `visibility: ["app"]`), which only a view may call
 * and a model must not be shown, even when `include` names it.
 */
export async function offeredTools(client: Client, options: AdapterOptions) {
  const tools = await client.listTools();
  return tools.filter(
    (t) =>
      !isAppOnly(t.ui) &&
      (options.include
        ? options.include.includes(t.name)
        : t['@type'] !== 'system' && t.name !== 'redeem' && t.name !== 'cancel'),
  );
}
