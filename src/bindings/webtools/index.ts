import type { Principal } from '../../core/auth.js';
import { McpLiteError } from '../../core/errors.js';
import type { NeutralHandler, NeutralRequest, NeutralResponse } from '../../core/http.js';
import type { MaybePromise } from '../../core/maybe-promise.js';
import type { CallResult } from '../../core/outcomes.js';
import type { ToolServer } from '../../core/server.js';
import type { Webtool, WebtoolVersion } from '../../core/webtools.js';
import { admitThen } from '../common/admit.js';
import { echoName } from '../common/echo.js';
import { errorExit } from '../common/error-exit.js';
import { errorHeaders, jsonHttpResponse, wantsEventStream } from '../common/http-reply.js';
import { assertJsonBodyHeaders, parseJsonBody } from '../common/json-body.js';
import { type StreamBoundOptions, sseEvent } from '../common/outbound-stream.js';
import { type FinalEvents, streamCall } from '../mcp-lite/http/sse.js';
import { BINDING, findVersion, findWebtool, metadataJson, redeemCall, toCall } from './methods.js';
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
      const webtool = findWebtool(server, decodeSegment(parts[0]!));
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
      throw new McpLiteError('method_not_found', `Not found: ${echoName(request.path)}`);
    } catch (err) {
      return Promise.resolve(failWithAny(err));
    }
  }

  function index(): NeutralResponse {
    const webtools = server.webtools.names().map((name) => ({ name, url: `${base}${name}/` }));
    return jsonHttpResponse(200, JSON.stringify({ webtools }));
  }

  /** GET metadata as the HTTP reply (methods.ts `metadataJson`). */
  function metadata(
    version: WebtoolVersion,
    request: NeutralRequest,
    principal: Principal | undefined,
  ): MaybePromise<NeutralResponse> {
    const json = metadataJson(server, version, request, principal);
    return json instanceof Promise ? json.then(metadataReply, failWithAny) : metadataReply(json);
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
    const call = redeemCall(webtool, token, request, principal);
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

/** GET only (405 with Allow otherwise); undefined when the method is fine. */
function onlyGet(request: NeutralRequest, allow = 'GET'): NeutralResponse | undefined {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
  return fail(new McpLiteError('method_not_allowed', `Method ${echoName(request.method)} not allowed`), {
    allow,
  });
}

function metadataReply(json: string): NeutralResponse {
  return jsonHttpResponse(200, json);
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

function normaliseBase(base: string): string {
  let b = base.startsWith('/') ? base : `/${base}`;
  if (!b.endsWith('/')) b += '/';
  return b;
}
