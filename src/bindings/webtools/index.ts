import type { Principal } from '../../core/auth.js';
import type { CallRequest } from '../../core/call-request.js';
import type { Listing } from '../../core/catalog.js';
import { McpLiteError } from '../../core/errors.js';
import type { NeutralHandler, NeutralRequest, NeutralResponse } from '../../core/http.js';
import type { MaybePromise } from '../../core/maybe-promise.js';
import type { CallResult } from '../../core/outcomes.js';
import type { ToolServer } from '../../core/server.js';
import { closestName } from '../../core/suggest.js';
import { REDEEM_TOOL } from '../../core/system-tools.js';
import { SEMVER, type Webtool, type WebtoolActionEntry, type WebtoolVersion } from '../../core/webtools.js';
import { admitThen } from '../common/admit.js';
import { BindingCall, BindingCaller } from '../common/binding-call.js';
import { elicitationReplyOf } from '../common/elicitation.js';
import { errorExit } from '../common/error-exit.js';
import { errorHeaders, jsonHttpResponse, wantsEventStream } from '../common/http-reply.js';
import { assertJsonBodyHeaders, parseJsonBody } from '../common/json-body.js';
import { type StreamBoundOptions, sseEvent } from '../common/outbound-stream.js';
import { type FinalEvents, streamCall } from '../mcp-lite/http/sse.js';
import { errorEnvelope, toWebtoolsReply, webtoolsErrorOf } from './wire.js';

/** Options of the Webtools binding. */
export interface WebtoolsBindingOptions extends StreamBoundOptions {
  /** Where the webtools live: `<basePath><name>/`. Default `/webtools/`. */
  basePath?: string;
  /** Largest accepted request body in bytes. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Idle time after which an SSE stream gets a `heartbeat` event, in ms. Default 15 000. */
  heartbeatMs?: number;
}

const MAX_SESSION_ID = 256;
const MAX_ECHO = 128;

/**
 * The Webtools binding (Webtools spec): at `<basePath><name>/`, GET answers the latest metadata, GET `<version>`
 * that version's, POST executes `{sessionId?, version?, action, config?, request}`; GET `promises/<token>` redeems
 * a promise (this server's extension, as are the other outcomes: docs/webtools.md). Returns undefined for paths
 * outside `basePath`.
 */
export function createWebtoolsBinding(
  server: ToolServer,
  options: WebtoolsBindingOptions = {},
): NeutralHandler {
  const base = normaliseBase(options.basePath ?? '/webtools/');
  const root = base.slice(0, -1);
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const log = server.logger.child({ binding: BINDING });
  const streamFinal: FinalEvents = {
    done: (result) => sseEvent('done', toWebtoolsReply(result).body),
    error: (err) => sseEvent('error', errorEnvelope(err)),
  };

  return (request) => (request.path.startsWith(base) || request.path === root ? guarded(request) : undefined);

  function guarded(request: NeutralRequest): Promise<NeutralResponse> {
    return admitThen(
      server,
      request,
      (principal) => route(request, principal),
      (err) => fail(errorExit(err, log)),
    );
  }

  /** `<name>`, `<name>/<version>` or `<name>/promises/<token>` below the base; never rejects. */
  function route(request: NeutralRequest, principal: Principal | undefined): Promise<NeutralResponse> {
    try {
      const rest = request.path.length > base.length ? request.path.slice(base.length) : '';
      const parts = rest.endsWith('/') ? rest.slice(0, -1).split('/') : rest.split('/');
      if (rest === '') return Promise.resolve(onlyGet(request) ?? index());
      const webtool = findWebtool(decodeSegment(parts[0]!));
      if (parts.length === 1) {
        if (request.method === 'POST') return execute(request, webtool, principal);
        return Promise.resolve(onlyGet(request, 'GET, POST') ?? metadata(webtool.latest, request, principal));
      }
      if (parts.length === 2) {
        const refused = onlyGet(request);
        if (refused) return Promise.resolve(refused);
        return Promise.resolve(metadata(findVersion(webtool, decodeSegment(parts[1]!)), request, principal));
      }
      if (parts.length === 3 && parts[1] === 'promises') {
        const refused = onlyGet(request);
        if (refused) return Promise.resolve(refused);
        return redeem(request, webtool, decodeSegment(parts[2]!), principal);
      }
      throw new McpLiteError('method_not_found', `Not found: ${truncate(request.path)}`);
    } catch (err) {
      return Promise.resolve(failWithAny(err));
    }
  }

  function index(): NeutralResponse {
    const webtools = server.webtools.names().map((name) => ({ name, url: `${base}${name}/` }));
    return jsonHttpResponse(200, JSON.stringify({ webtools }));
  }

  /**
   * GET metadata: the version's `tools/list`. Without user middleware its JSON made once; with it, the actions the
   * chain's listing keeps (a `visibleTools` stage hides an action from the callers it hides the tool from).
   */
  function metadata(
    version: WebtoolVersion,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): MaybePromise<NeutralResponse> {
    if (!server.pipeline.seesEveryOperation) return jsonHttpResponse(200, version.metadataJson);
    const listing = server.listToolsFor(new BindingCaller(BINDING, request, principal));
    const answer = (l: Listing) => {
      const listed = new Set(l.tools.map((t) => t.name));
      const all = JSON.parse(version.metadataJson) as { actions: Array<{ name: string }> };
      all.actions = all.actions.filter((a) => listed.has(a.name));
      return jsonHttpResponse(200, JSON.stringify(all));
    };
    return listing instanceof Promise ? listing.then(answer, failWithAny) : answer(listing);
  }

  function findWebtool(name: string): Webtool {
    const webtool = server.webtools.get(name);
    if (webtool) return webtool;
    throw new McpLiteError('webtool_not_found', `Webtool not found: ${truncate(name)}`, {
      available_webtools: server.webtools.names(),
    });
  }

  function findVersion(webtool: Webtool, version: unknown): WebtoolVersion {
    if (typeof version !== 'string' || !SEMVER.test(version)) {
      throw new McpLiteError(
        'invalid_params',
        `Invalid 'version': must be a semantic version such as "1.0.0"`,
        { errors: [{ field: 'version', message: 'must be a semantic version (MAJOR.MINOR.PATCH)' }] },
      );
    }
    const found = webtool.versions.get(version);
    if (found) return found;
    throw new McpLiteError('webtool_not_found', `Version ${version} of webtool ${webtool.name} not found`, {
      available_versions: [...webtool.versions.keys()],
    });
  }

  /** POST: checks the headers, reads the body, runs the action; synchronous after the read when the tool is. */
  function execute(
    request: NeutralRequest,
    webtool: Webtool,
    principal: Principal | undefined,
  ): Promise<NeutralResponse> {
    assertJsonBodyHeaders(request.headers);
    return request.readBody(maxBody).then((bytes) => {
      try {
        const call = toCall(parseJsonBody(bytes), webtool, request, principal);
        if (wantsEventStream(request.headers.accept)) {
          return streamCall(
            (onPartial) => {
              call.onPartial = onPartial;
              return server.callTool(call);
            },
            heartbeatMs,
            log,
            streamFinal,
            options.maxQueuedBytes,
          );
        }
        const result = server.call(call);
        return result instanceof Promise ? result.then(reply, failWithAny) : reply(result);
      } catch (err) {
        return failWithAny(err);
      }
    }, failWithAny);
  }

  /** GET `promises/<token>`: redeems like the `redeem` action, without waiting. */
  function redeem(
    request: NeutralRequest,
    webtool: Webtool,
    token: string,
    principal: Principal | undefined,
  ): Promise<NeutralResponse> {
    const entry = webtool.latest.actions.get(REDEEM_TOOL);
    if (!entry) throw new McpLiteError('method_not_found', 'This server keeps no promises');
    const call = webtoolCall(entry, { promise: token }, request, principal, undefined, undefined);
    return server.callTool(call).then(reply, failWithAny);
  }

  function reply(result: CallResult): NeutralResponse {
    const { status, body } = toWebtoolsReply(result);
    return jsonHttpResponse(status, body);
  }

  function failWithAny(err: unknown): NeutralResponse {
    return fail(errorExit(err, log));
  }
}

/** The binding's one name (`op.caller.binding`, `ctx.binding`, logs, metrics). */
const BINDING = 'webtools';

/**
 * The POST body as a core call: `{sessionId?, version?, action, config?, request, elicitation?}` checked field by
 * field (SCHEMA_ERROR naming the field), the version found (WEBTOOL_NOT_FOUND), the action looked up in that
 * version (ACTION_NOT_FOUND), the config merged and checked (CONFIG_ERROR).
 */
function toCall(
  body: unknown,
  webtool: Webtool,
  request: NeutralRequest,
  principal: Principal | undefined,
): BindingCall {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw schemaError('body', 'must be an object { action, request, version?, config?, sessionId? }');
  }
  const b = body as Record<string, unknown>;
  if (typeof b.action !== 'string' || b.action.length === 0) {
    throw schemaError('action', 'is required and must be a non-empty string');
  }
  if (b.sessionId !== undefined && (typeof b.sessionId !== 'string' || b.sessionId.length > MAX_SESSION_ID)) {
    throw schemaError('sessionId', `must be a string of at most ${MAX_SESSION_ID} characters`);
  }
  let version = webtool.latest;
  if (b.version !== undefined) {
    if (typeof b.version !== 'string' || !SEMVER.test(b.version)) {
      throw schemaError('version', 'must be a semantic version such as "1.0.0"');
    }
    const pinned = webtool.versions.get(b.version);
    if (!pinned) {
      throw new McpLiteError(
        'webtool_not_found',
        `Version ${b.version} of webtool ${webtool.name} not found`,
        { available_versions: [...webtool.versions.keys()] },
      );
    }
    version = pinned;
  }
  const entry = version.actions.get(b.action);
  if (!entry) {
    const available = [...version.actions.keys()];
    const suggestion = b.action.length <= MAX_ECHO ? closestName(b.action, available) : undefined;
    throw new McpLiteError('tool_not_found', `Action not found: ${truncate(b.action)}`, {
      requested_action: truncate(b.action),
      available_actions: available,
      ...(suggestion ? { suggestion: `Did you mean '${suggestion}'?` } : {}),
    });
  }
  if (
    b.request !== undefined &&
    (typeof b.request !== 'object' || b.request === null || Array.isArray(b.request))
  ) {
    throw schemaError('request', 'must be an object');
  }
  const elicitation: CallRequest['elicitation'] =
    b.elicitation === undefined
      ? undefined
      : elicitationReplyOf(b.elicitation, (why) => schemaError('elicitation', why));
  return webtoolCall(entry, b.request, request, principal, version.config(b.config), elicitation);
}

/** One execution as core takes it: the bindings' one request class, with the action's own tool and config. */
function webtoolCall(
  entry: WebtoolActionEntry,
  args: unknown,
  request: NeutralRequest,
  principal: Principal | undefined,
  config: Readonly<Record<string, unknown>> | undefined,
  elicitation: CallRequest['elicitation'],
): BindingCall {
  const name = entry.metadata.name;
  return new BindingCall({
    name,
    arguments: args,
    principal,
    signalSource: request,
    elicitation,
    binding: BINDING,
    config,
    action: entry.tool,
  });
}

/** GET only (405 with Allow otherwise); undefined when the method is fine. */
function onlyGet(request: NeutralRequest, allow = 'GET'): NeutralResponse | undefined {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
  return fail(new McpLiteError('method_not_allowed', `Method ${truncate(request.method)} not allowed`), {
    allow,
  });
}

function schemaError(field: string, message: string): McpLiteError {
  return new McpLiteError('invalid_request', `Invalid request: '${field}' ${message}`, {
    errors: [{ field, message }],
  });
}

function fail(err: McpLiteError, extraHeaders?: Record<string, string>): NeutralResponse {
  return jsonHttpResponse(webtoolsErrorOf(err).status, errorEnvelope(err), errorHeaders(err, extraHeaders));
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new McpLiteError('method_not_found', 'Not found: the path is not valid percent-encoding');
  }
}

function truncate(s: string): string {
  return s.length > MAX_ECHO ? `${s.slice(0, MAX_ECHO)}…` : s;
}

function normaliseBase(base: string): string {
  let b = base.startsWith('/') ? base : `/${base}`;
  if (!b.endsWith('/')) b += '/';
  return b;
}
