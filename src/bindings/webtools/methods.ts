import type { Principal } from '../../core/auth.js';
import type { CallRequest } from '../../core/call-request.js';
import type { Listing } from '../../core/catalog.js';
import { McpLiteError } from '../../core/errors.js';
import type { NeutralRequest } from '../../core/http.js';
import { type MaybePromise, mapMaybe } from '../../core/maybe-promise.js';
import type { ToolServer } from '../../core/server.js';
import { closestName } from '../../core/suggest.js';
import { REDEEM_TOOL } from '../../core/system-tools.js';
import { SEMVER, type Webtool, type WebtoolActionEntry, type WebtoolVersion } from '../../core/webtools.js';
import { BindingCall, BindingCaller } from '../common/binding-call.js';
import { echoName, MAX_ECHO_CHARS } from '../common/echo.js';
import { elicitationReplyOf } from '../common/elicitation.js';

/** The binding's one name (`op.caller.binding`, `ctx.binding`, logs, metrics). */
export const BINDING = 'webtools';

const MAX_SESSION_ID = 256;

/** The webtool a path names, or `webtool_not_found` with the names there are. */
export function findWebtool(server: ToolServer, name: string): Webtool {
  const webtool = server.webtools.get(name);
  if (webtool) return webtool;
  throw new McpLiteError('webtool_not_found', `Webtool not found: ${echoName(name)}`, {
    available_webtools: server.webtools.names(),
  });
}

/** The version a path names: `invalid_params` unless semantic, `webtool_not_found` unless the webtool has it. */
export function findVersion(webtool: Webtool, version: unknown): WebtoolVersion {
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

/**
 * GET metadata: the version's `tools/list` as its JSON. Without user middleware the JSON made once; with it, the
 * actions the chain's listing keeps (a `visibleTools` stage hides an action from the callers it hides the tool from).
 */
export function metadataJson(
  server: ToolServer,
  version: WebtoolVersion,
  request: NeutralRequest,
  principal: Principal | undefined,
): MaybePromise<string> {
  if (!server.pipeline.seesEveryOperation) return version.metadataJson;
  const listing = server.listToolsFor(new BindingCaller(BINDING, request, principal));
  return mapMaybe(listing, (l: Listing) => {
    const listed = new Set(l.tools.map((t) => t.name));
    const all = JSON.parse(version.metadataJson) as { actions: Array<{ name: string }> };
    all.actions = all.actions.filter((a) => listed.has(a.name));
    return JSON.stringify(all);
  });
}

/**
 * The POST body as a core call: `{sessionId?, version?, action, config?, request, elicitation?}` checked field by
 * field (SCHEMA_ERROR naming the field), the version found (WEBTOOL_NOT_FOUND), the action looked up in that
 * version (ACTION_NOT_FOUND), the config merged and checked (CONFIG_ERROR).
 */
export function toCall(
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
    const suggestion = b.action.length <= MAX_ECHO_CHARS ? closestName(b.action, available) : undefined;
    throw new McpLiteError('tool_not_found', `Action not found: ${echoName(b.action)}`, {
      requested_action: echoName(b.action),
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

/**
 * GET `promises/<token>` as a core call: the latest version's `redeem` action, without waiting (`method_not_found`
 * when the server keeps no promises).
 */
export function redeemCall(
  webtool: Webtool,
  token: string,
  request: NeutralRequest,
  principal: Principal | undefined,
): BindingCall {
  const entry = webtool.latest.actions.get(REDEEM_TOOL);
  if (!entry) throw new McpLiteError('method_not_found', 'This server keeps no promises');
  return webtoolCall(entry, { promise: token }, request, principal, undefined, undefined);
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

function schemaError(field: string, message: string): McpLiteError {
  return new McpLiteError('invalid_request', `Invalid request: '${field}' ${message}`, {
    errors: [{ field, message }],
  });
}
