import { AsyncQueue } from '../bindings/common/async-queue.js';
import type { ResourceContents } from '../core/content.js';
import { McpLiteError } from '../core/errors.js';
import type { RenderedPrompt, WirePrompt } from '../core/prompts.js';
import type { WireResource, WireResourceTemplate } from '../core/resources.js';
import type { ToolServer } from '../core/server.js';
import { closestName } from '../core/suggest.js';
import type { CatalogRequestOptions, Client } from './client-api.js';
import { type CallScope, callScope, sleep, untilAborted } from './deadline.js';
import { openTransport } from './detect.js';
import { boundedPartials, type ClientLimits, limitsOf } from './limits.js';
import { checkLock, lockMismatch, readLockfile } from './lock.js';
import { startOfTarget } from './start-target.js';
import { outgoingTrace, traceClientOperation } from './tracing.js';
import type { Transport, WireContext, WireOutcome } from './transport.js';
import type { ToolSet, UntypedTools } from './typed.js';
import type {
  Binding,
  CallOptions,
  CallOutcome,
  CancelResult,
  ConnectOptions,
  Lockfile,
  PartialEvent,
  ToolInfo,
} from './types.js';
import { type ToolViewInfo, toolView, type ViewOptions } from './views.js';
import { abortError, locate, toClientError } from './wire-errors.js';

/** The `target` of a client connected to a server in this process. */
const IN_MEMORY_TARGET = 'memory:';

export type { Client } from './client-api.js';

/** How long one server-side redeem wait lasts (the servers cap `wait_ms` at 30 s). */
const REDEEM_WAIT_MS = 10_000;
/** Bounds of the back-off between redeems on wires that cannot wait server-side. */
const MIN_DELAY_MS = 50;
const MAX_DELAY_MS = 5_000;
/** How long cancelling a promise the caller gave up on may take. */
const CANCEL_MS = 2_000;
/** How old a lock check may be before a call lists the catalog again (`lockRecheckMs`). */
const LOCK_RECHECK_MS = 1_000;

/** One lock's last check of the server's catalog: the tools a call may reach, and when it was made. */
interface LockCheck {
  names: Promise<Set<string>>;
  at: number;
}

/**
 * Connects to a tool server. `target`: an MCP-lite HTTP URL (`…/mcp-lite/v1/`), an MCP URL (`…/mcp`),
 * `grpc://host:port` or `grpcs://…`, a Webtools URL (`…/webtools/<name>/`), or a command line that runs an MCP
 * server over stdio. The binding is detected from the scheme and path, else by asking the server; `binding`
 * forces one. A Server Card URL (`…/server-card`) connects to the Streamable HTTP remote the card lists
 * (`card-target.ts`); a registry entry (`…server.json`, a URL or a path) its remote, or with `allowPackageLaunch`
 * one of its packages over stdio (`registry-target.ts`). With `lock`, a server whose locked tools changed is refused here. `timeout` bounds connecting
 * (and reading a card) too.
 * Given a `ToolServer` (from `createServer`) instead of a target, it speaks MCP to it in this process, without a
 * socket (`in-memory.ts`): the way to test a server. `Tools` (`typeof tools`) types `call`.
 */
export async function connect<Tools extends ToolSet = UntypedTools>(
  target: string | ToolServer,
  options: ConnectOptions = {},
): Promise<Client<Tools>> {
  const where = typeof target === 'string' ? target : IN_MEMORY_TARGET;
  const connecting = callScope(options.timeout);
  const opening =
    typeof target === 'string'
      ? startOfTarget(target, options, connecting.signal).then((start) =>
          openTransport(start.endpoint, start.options, connecting.signal),
        )
      : import('./in-memory.js').then(({ inMemoryTransport }) =>
          inMemoryTransport(target, options, limitsOf(options), connecting.signal),
        );
  const transport = await opening
    .catch((err: unknown) => {
      throw locate(toClientError(err, connecting.signal), where);
    })
    .finally(() => connecting.dispose());
  const client = new ToolClient(where, transport, options);
  if (options.lock !== undefined) {
    try {
      await client.listTools();
    } catch (err) {
      await transport.close().catch(() => {});
      throw err;
    }
  }
  // The tool types exist at compile time only: one client serves every typing of it.
  return client as unknown as Client<Tools>;
}

/** `call` is generic on `Client`; the class implements its untyped form, which every typing narrows. */
class ToolClient implements Omit<Client, 'call'> {
  readonly binding: Binding;
  private readonly locks = new Map<Lockfile | string, LockCheck>();
  private readonly limits: ClientLimits;

  constructor(
    readonly target: string,
    private readonly transport: Transport,
    private readonly options: ConnectOptions,
  ) {
    this.binding = transport.binding;
    this.limits = limitsOf(options);
    // The server says its catalog changed: every lock is checked again before the next call.
    transport.onToolsChanged?.(() => this.locks.clear());
  }

  async listTools(options: { signal?: AbortSignal } = {}): Promise<ToolInfo[]> {
    const at = Date.now();
    const scope = callScope(this.options.timeout, options.signal);
    const tools = await this.transport
      .listTools({ signal: scope.signal })
      .catch((err: unknown) => {
        throw locate(toClientError(err, scope.signal), this.target);
      })
      .finally(() => scope.dispose());
    const lock = this.options.lock;
    if (lock === undefined) return tools;
    const visible = this.checkCatalog(lock, tools);
    // A fresh listing is a fresh check: calls under the client's lock rely on it until it ages.
    this.remember(lock, visible, at);
    return visible;
  }

  call(name: string, args: Record<string, unknown> = {}, options: CallOptions = {}): Promise<CallOutcome> {
    return traceClientOperation('tools/call', name, this.transport.binding, () =>
      this.callOnce(name, args, options),
    );
  }

  /** `call`, inside its span. */
  private async callOnce(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallOutcome> {
    const started = Date.now();
    const scope = this.scope(options);
    const ctx = this.context(options, scope);
    try {
      const lock = options.lock ?? this.options.lock;
      if (lock !== undefined) await this.checkLocked(lock, name, ctx.signal);
      const outcome = await this.transport.call(name, args, ctx);
      return await this.settle(outcome, options, ctx, started);
    } catch (err) {
      throw locate(toClientError(err, ctx.signal), this.target);
    } finally {
      scope.dispose();
    }
  }

  async *stream(
    name: string,
    args: Record<string, unknown> = {},
    options: Omit<CallOptions, 'onPartial'> = {},
  ): AsyncGenerator<PartialEvent | CallOutcome, void, undefined> {
    const queue = new AsyncQueue<{ partial: unknown } | { outcome: CallOutcome } | { error: unknown }>();
    const stop = new AbortController();
    // A listener, not `AbortSignal.any`, whose links are weak (see deadline.ts).
    const onCallerAbort = () => stop.abort(options.signal?.reason);
    if (options.signal?.aborted) onCallerAbort();
    else options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const { signal } = stop;
    this.call(name, args, {
      ...options,
      signal,
      onPartial: (value) => void queue.push({ partial: value }),
    }).then(
      (outcome) => {
        void queue.push({ outcome });
        queue.end();
      },
      (error) => {
        void queue.push({ error });
        queue.end();
      },
    );
    try {
      for await (const item of queue) {
        if ('partial' in item) yield { type: 'partial', value: item.partial };
        else if ('outcome' in item) {
          yield item.outcome;
          return;
        } else throw item.error;
      }
    } finally {
      // The consumer stopped early: the call (and a promise it made) is abandoned, so cancel it.
      options.signal?.removeEventListener('abort', onCallerAbort);
      stop.abort();
    }
  }

  redeem(token: string, options: CallOptions = {}): Promise<CallOutcome> {
    return traceClientOperation('tools/call', 'redeem', this.transport.binding, () =>
      this.redeemOnce(token, options),
    );
  }

  /** `redeem`, inside its span. */
  private async redeemOnce(token: string, options: CallOptions): Promise<CallOutcome> {
    const started = Date.now();
    const scope = this.scope(options);
    const ctx = this.context(options, scope);
    try {
      if (options.redeem === false) return this.wrap(await this.transport.redeem(token, 0, ctx), options);
      return await this.settle({ type: 'promise', token }, options, ctx, started);
    } catch (err) {
      throw locate(toClientError(err, ctx.signal), this.target);
    } finally {
      scope.dispose();
    }
  }

  async cancel(token: string, options: { signal?: AbortSignal } = {}): Promise<CancelResult> {
    const scope = callScope(this.options.timeout, options.signal);
    return this.transport
      .cancel(token, { signal: scope.signal })
      .catch((err) => {
        throw locate(toClientError(err, scope.signal), this.target);
      })
      .finally(() => scope.dispose());
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  onToolsChanged(listener: () => void): void {
    this.transport.onToolsChanged?.(listener);
  }

  onResourcesChanged(listener: () => void): void {
    this.transport.onResourcesChanged?.(listener);
  }

  onPromptsChanged(listener: () => void): void {
    this.transport.onPromptsChanged?.(listener);
  }

  listResources(options: CatalogRequestOptions = {}): Promise<WireResource[]> {
    return this.catalog('listResources', options, (wire, ctx) => wire.listResources?.(ctx));
  }

  listResourceTemplates(options: CatalogRequestOptions = {}): Promise<WireResourceTemplate[]> {
    return this.catalog('listResourceTemplates', options, (wire, ctx) => wire.listResourceTemplates?.(ctx));
  }

  readResource(uri: string, options: CatalogRequestOptions = {}): Promise<ResourceContents[]> {
    if (typeof uri !== 'string' || uri.length === 0)
      return Promise.reject(new McpLiteError('invalid_params', 'readResource needs a non-empty URI'));
    return this.catalog('readResource', options, (wire, ctx) => wire.readResource?.(uri, ctx));
  }

  view(name: string, options: ViewOptions = {}): Promise<ToolViewInfo | undefined> {
    return toolView(this, name, options);
  }

  listPrompts(options: CatalogRequestOptions = {}): Promise<WirePrompt[]> {
    return this.catalog('listPrompts', options, (wire, ctx) => wire.listPrompts?.(ctx));
  }

  getPrompt(
    name: string,
    args: Record<string, string> = {},
    options: CatalogRequestOptions = {},
  ): Promise<RenderedPrompt> {
    return this.catalog('getPrompt', options, (wire, ctx) => wire.getPrompt?.(name, args, ctx));
  }

  /**
   * One resources or prompts exchange under the client's timeout and the caller's signal; a wire that carries
   * none (`run` gives nothing) is `method_not_found` naming the binding, not a silent empty list.
   */
  private async catalog<T>(
    method: string,
    options: CatalogRequestOptions,
    run: (wire: Transport, ctx: WireContext) => Promise<T> | undefined,
  ): Promise<T> {
    const scope = callScope(options.timeout ?? this.options.timeout, options.signal);
    const trace = outgoingTrace();
    try {
      const pending = run(this.transport, { signal: scope.signal, ...(trace ? { trace } : {}) });
      if (!pending)
        throw new McpLiteError(
          'method_not_found',
          `${method} is not carried by the ${this.binding} binding`,
          {
            reason: 'unsupported_by_binding',
            binding: this.binding,
          },
        );
      return await pending;
    } catch (err) {
      throw locate(toClientError(err, scope.signal), this.target);
    } finally {
      scope.dispose();
    }
  }

  /** The scope of one call: its timeout (or the client's) and the caller's signal; disposed when it ends. */
  private scope(options: CallOptions): CallScope {
    // A call whose partials are bounded can be ended by the client (`boundedPartials`), so it needs a signal.
    return callScope(
      options.timeout ?? this.options.timeout,
      options.signal,
      options.onPartial !== undefined,
    );
  }

  /** The wire context of one call: the scope's signal, and the partials sink under the client's bounds. */
  private context(options: CallOptions, scope: CallScope): WireContext {
    const { onPartial } = options;
    const trace = outgoingTrace();
    return {
      ...(scope.signal ? { signal: scope.signal, fail: scope.fail } : {}),
      ...(onPartial ? { onPartial: boundedPartials(onPartial, this.limits, scope.fail) } : {}),
      ...(trace ? { trace } : {}),
    };
  }

  /** Follows a promise to its end (unless told not to) and gives elicitations their continuation. */
  private async settle(
    outcome: WireOutcome,
    options: CallOptions,
    ctx: WireContext,
    started: number,
  ): Promise<CallOutcome> {
    if (outcome.type !== 'promise' || options.redeem === false) return this.wrap(outcome, options);
    const { token } = outcome;
    let eta = outcome.estimatedCompletion;
    let backoff = 100;
    let attempts = 0;
    try {
      for (;;) {
        options.onPromise?.({
          token,
          ...(eta ? { estimatedCompletion: eta } : {}),
          elapsedMs: Date.now() - started,
          attempts,
        });
        const asked = Date.now();
        if (!this.transport.canWait || attempts > 0) {
          const untilEta = eta ? Date.parse(eta) - Date.now() : Number.NaN;
          const delay = this.transport.canWait
            ? 0
            : Number.isFinite(untilEta) && untilEta > MIN_DELAY_MS
              ? Math.min(untilEta, MAX_DELAY_MS)
              : backoff;
          if (delay > 0) await sleep(delay, ctx.signal);
          backoff = Math.min(backoff * 1.5, 2_000);
        }
        attempts++;
        // The call's partials sink goes along: a transport that streams a waiting redeem (MCP-lite HTTP) hands on
        // the handler's progress while the work runs, not only what came before the promise.
        const next = await this.transport.redeem(token, this.transport.canWait ? REDEEM_WAIT_MS : 0, {
          ...(ctx.signal ? { signal: ctx.signal } : {}),
          ...(ctx.trace ? { trace: ctx.trace } : {}),
          ...(ctx.onPartial ? { onPartial: ctx.onPartial } : {}),
        });
        if (next.type !== 'promise') return this.wrap(next, options);
        eta = next.estimatedCompletion ?? eta;
        // A server that ignored wait_ms and answered at once is polled with a back-off instead of hammered.
        if (this.transport.canWait && Date.now() - asked < MIN_DELAY_MS) await sleep(backoff, ctx.signal);
      }
    } catch (err) {
      if (ctx.signal?.aborted) {
        // The caller gave up: the work it asked for is no longer wanted.
        const cancelling = callScope(CANCEL_MS);
        await this.transport
          .cancel(token, { signal: cancelling.signal })
          .catch(() => {})
          .finally(() => cancelling.dispose());
        throw abortError(ctx.signal, { promise: token });
      }
      throw err;
    }
  }

  /** A wire outcome as the public one: an elicitation gets `answer()`/`decline()` on the same wire. */
  private wrap(outcome: WireOutcome, options: CallOptions): CallOutcome {
    if (outcome.type !== 'elicitation') return outcome;
    const { resume, ...rest } = outcome;
    const next = async (
      values: Record<string, unknown> | undefined,
      o?: CallOptions,
    ): Promise<CallOutcome> => {
      const opts = { ...options, ...o };
      const scope = this.scope(opts);
      const ctx = this.context(opts, scope);
      const answers = values === undefined ? undefined : withDefaults(outcome, values);
      try {
        return await this.settle(await resume(answers, ctx), opts, ctx, Date.now());
      } catch (err) {
        throw toClientError(err, ctx.signal);
      } finally {
        scope.dispose();
      }
    };
    return { ...rest, answer: (values, o) => next(values, o), decline: (o) => next(undefined, o) };
  }

  private loadLock(lock: Lockfile | string): Promise<Lockfile> {
    return typeof lock === 'string' ? readLockfile(lock) : Promise.resolve(lock);
  }

  /** The locked tools of `tools` (as served), or the lock mismatch naming each changed tool. */
  private async checkCatalog(lock: Lockfile | string, tools: readonly ToolInfo[]): Promise<ToolInfo[]> {
    const { visible, changes } = checkLock(await this.loadLock(lock), tools);
    if (changes.length > 0) throw lockMismatch(changes);
    return visible;
  }

  /** Keeps a check for the calls that follow; a failed one is forgotten, so the next call checks again. */
  private remember(lock: Lockfile | string, visible: Promise<ToolInfo[]>, at: number): LockCheck {
    const names = visible.then((tools) => new Set(tools.map((t) => t.name)));
    const check = { names, at };
    this.locks.set(lock, check);
    names.catch(() => {
      if (this.locks.get(lock) === check) this.locks.delete(lock);
    });
    return check;
  }

  /**
   * A call under a lock: the catalog is checked again when the last check is older than `lockRecheckMs` (or the
   * server said its tools changed), so a server that changes a tool mid-session is refused within that time;
   * concurrent calls share one listing. Tools outside the lock are unknown.
   */
  private async checkLocked(lock: Lockfile | string, name: string, signal?: AbortSignal): Promise<void> {
    const maxAge = this.options.lockRecheckMs ?? LOCK_RECHECK_MS;
    let check = this.locks.get(lock);
    if (!check || Date.now() - check.at > maxAge || maxAge <= 0) {
      const at = Date.now();
      // Not bound to this call's signal: other calls may share the listing; each waits under its own signal.
      const visible = this.transport.listTools({}).then((tools) => this.checkCatalog(lock, tools));
      check = this.remember(lock, visible, at);
    }
    const allowed = await untilAborted(check.names, signal);
    if (!allowed.has(name) && name !== 'redeem' && name !== 'cancel') {
      const suggestion = closestName(name, [...allowed]);
      throw new McpLiteError('tool_not_found', `Tool not found: ${name} (not in the lockfile)`, {
        requested_tool: name,
        available_tools: [...allowed],
        ...(suggestion ? { suggestion: `Did you mean '${suggestion}'?` } : {}),
      });
    }
  }
}

/**
 * The answers with the schema's defaults filled in for the fields the user left out (MCP SEP-1034: the client
 * applies defaults), per request when there are several.
 */
function withDefaults(outcome: WireOutcome & { type: 'elicitation' }, values: Record<string, unknown>) {
  const fill = (schema: unknown, given: unknown): unknown => {
    const props = (schema as { properties?: Record<string, { default?: unknown }> } | undefined)?.properties;
    if (!props || typeof given !== 'object' || given === null || Array.isArray(given)) return given;
    const out: Record<string, unknown> = { ...(given as Record<string, unknown>) };
    for (const [key, prop] of Object.entries(props)) {
      if (out[key] === undefined && prop && prop.default !== undefined) out[key] = prop.default;
    }
    return out;
  };
  if (!outcome.requests) return fill(outcome.requestedSchema, values) as Record<string, unknown>;
  const out: Record<string, unknown> = { ...values };
  for (const [name, request] of Object.entries(outcome.requests)) {
    if (out[name] !== undefined) out[name] = fill(request.requestedSchema, out[name]);
  }
  return out;
}
