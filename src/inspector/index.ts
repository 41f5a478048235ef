import { randomBytes } from 'node:crypto';
import { errorExit } from '../bindings/common/error-exit.js';
import { assertJsonBodyHeaders, parseJsonBody } from '../bindings/common/json-body.js';
import { McpLiteError } from '../core/errors.js';
import type { NeutralHandler, NeutralRequest, NeutralResponse } from '../core/http.js';
import { stderrLogger, toLogger } from '../core/log-output.js';
import type { LoggerLike } from '../core/logger.js';
import { InspectorApi, type InspectorApiLimits, json } from './api.js';
import { type ViewLimits, ViewStore } from './apps.js';
import { InspectorCredentials, TOKEN_HEADER, TOKEN_PARAMETER } from './credentials.js';
import { checkInspectorRequest, type InspectorGuardOptions } from './guard.js';
import type { InspectorSignIn } from './sign-in.js';
import { pageAssets } from './static.js';
import type { InspectorTarget } from './target.js';

export { InspectorSignIn, type SignInStatus } from './sign-in.js';
export type { Snippets } from './snippets.js';
export {
  type Exchange,
  type InspectorOutcome,
  type InspectorTarget,
  type PromptListing,
  type PromptRendering,
  type ProtocolError,
  type RoundOptions,
  type TargetCallOptions,
  TargetError,
  type TargetReply,
  type ToolListing,
} from './target.js';
export { createMcpLiteHttpTarget, type McpLiteHttpTargetOptions } from './targets/mcp-lite-http.js';
export { fetchTransport, handlerTransport, type Transport } from './targets/transport.js';

/** Options of the inspector's handler. */
export interface InspectorOptions extends InspectorGuardOptions, InspectorApiLimits, ViewLimits {
  /** What the page inspects and calls. */
  target: InspectorTarget;
  /** Where the page lives. Default `/inspector/`. */
  path?: string;
  /** Largest API request body in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * The base path of the server's MCP-lite HTTP binding, when the inspector is mounted on the server it inspects:
   * copy-as snippets then name `http://<Host><basePath>`.
   */
  selfBasePath?: string;
  /** Whether the target requires a bearer token the page must ask for (the server's own auth). */
  requiresToken?: boolean;
  /** The per-run token; default 128 random bits. Tests pass their own. */
  token?: string;
  /**
   * The page as the user agent of the target's OAuth sign-in (`mcplite inspect`): `api/auth` tells the page what
   * to show, and its callback route (`signInCallbackPath`) is the redirect URL the authorization server sends the browser back to.
   */
  signIn?: InspectorSignIn;
  /**
   * The path of the sign-in's redirect route. Default `<path>oauth/callback`; `mcplite inspect` uses `/callback`,
   * the CLI's loopback path, so a client registered by `mcplite login` (any loopback port, RFC 8252) serves both.
   */
  signInCallbackPath?: string;
  /** Where an internal error of the page's API is logged (once, with its cause). Default: stderr, warnings and up. */
  logger?: LoggerLike;
}

/** A mounted inspector: its handler and its per-run token. */
export interface Inspector {
  /** Serves the page and its API under `path`; declines every other path. */
  handler: NeutralHandler;
  /** Where the page is mounted (with a trailing slash). */
  path: string;
  /** The per-run token: a script sends it in the `x-mcplite-inspector` header; a browser brings it once in the URL. */
  token: string;
  /** The path of the sign-in's redirect route (`signInCallbackPath`). */
  callbackPath: string;
  /**
   * The page's path with `?token=`: what to print or open for the operator. Its first visit exchanges the token for
   * an HttpOnly cookie and redirects to the bare page; nothing is served to a request without the one or the other.
   */
  entryPath: string;
}

// The page loads only its own files: no inline script, no other origin, no framing (clickjacking). It frames
// only its own `view/<id>` documents (MCP Apps views, each sandboxed to an opaque origin with a policy of its own).
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
    "frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * Creates the web inspector: a page (catalog, forms from input schemas, raw exchanges, live partials, promises,
 * elicitations, history, copy-as) and the small local API it talks to, which performs the calls through `target`.
 * Every request must come from a loopback peer with an allowed Host and no foreign Origin, and hold the per-run
 * token or the cookie its URL was exchanged for (`entryPath`). See docs/inspector.md.
 */
export function createInspector(options: InspectorOptions): Inspector {
  const mount = withSlashes(options.path ?? '/inspector/');
  const bare = mount.slice(0, -1);
  const token = options.token ?? randomBytes(16).toString('base64url');
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const api = new InspectorApi(options.target, options);
  const views = new ViewStore(options.target, options);
  const assets = pageAssets();
  const page = assets.get('index.html')!.body;
  const credentials = new InspectorCredentials(token, mount);

  const callbackPath = options.signInCallbackPath ?? `${mount}${CALLBACK}`;
  const log = toLogger(options.logger ?? stderrLogger());

  const handler: NeutralHandler = (request) => {
    if (request.path !== bare && !request.path.startsWith(mount) && request.path !== callbackPath)
      return undefined;
    return handle(request).catch((err) => {
      const e = errorExit(err, log);
      return json(STATUS[e.code] ?? 500, {
        error: { code: e.code, message: e.message, ...(e.data ? { data: e.data } : {}) },
      });
    });
  };

  async function handle(request: NeutralRequest): Promise<NeutralResponse> {
    // The authorization server's redirect holds no inspector credential (it comes from another origin): the
    // pending sign-in's `state` is what it must bring.
    if (request.path === callbackPath) {
      if (options.signIn) return callback(request, options.signIn);
      throw new McpLiteError('method_not_found', `Not found: ${request.path}`);
    }
    const refused = checkInspectorRequest(request, options);
    if (refused) throw refused;
    const credential = credentials.credential(request);
    if (credential === 'none') {
      throw new McpLiteError(
        'forbidden',
        'Forbidden: open the inspector with the URL it printed (…/?token=…); this browser holds no inspector cookie',
      );
    }
    const rest = request.path.slice(mount.length);
    const isApi = request.path.startsWith(`${mount}api/`);
    if (credential === 'url' && !isApi && (request.method === 'GET' || request.method === 'HEAD')) {
      // The token leaves the address bar (and the history) at once; the cookie stands for it from here on.
      const location = credentials.cleanLocation(request.path === bare ? mount : request.path, request);
      return {
        status: 303,
        headers: {
          location,
          'set-cookie': credentials.setCookie(request),
          'cache-control': 'no-store',
          'referrer-policy': 'no-referrer',
        },
        body: '',
      };
    }
    if (request.path === bare) return { status: 308, headers: { location: mount }, body: '' };
    if (isApi) {
      // The cookie rides along with any request the browser makes; the custom header only with the page's own.
      if (credential === 'cookie' && request.headers[TOKEN_HEADER] === undefined) {
        throw new McpLiteError('forbidden', `Forbidden: the ${TOKEN_HEADER} header is missing`);
      }
      return apiRoute(request, rest.slice(4));
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      throw new McpLiteError('method_not_allowed', 'Use GET');
    }
    if (rest.startsWith('view/')) {
      const view = views.serve(rest.slice(5));
      if (!view)
        throw new McpLiteError('method_not_found', 'Not found: this view expired; call the tool again');
      return view;
    }
    if (rest === '') {
      return {
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...PAGE_HEADERS },
        body: page,
      };
    }
    const asset = rest.startsWith('assets/') ? assets.get(rest.slice(7)) : undefined;
    if (!asset || rest.slice(7) === 'index.html')
      throw new McpLiteError('method_not_found', `Not found: ${request.path}`);
    return {
      status: 200,
      headers: { 'content-type': asset.type, 'cache-control': 'no-cache', ...PAGE_HEADERS },
      body: asset.body,
    };
  }

  async function callback(request: NeutralRequest, signIn: InspectorSignIn): Promise<NeutralResponse> {
    const refused = checkInspectorRequest(request, options, true);
    if (refused) throw refused;
    if (request.method !== 'GET') throw new McpLiteError('method_not_allowed', 'Use GET');
    const done = signIn.complete(request.query ?? '');
    const said = done
      ? `Signed in to ${signIn.server}. Return to the inspector: it carries on by itself.`
      : 'No sign-in waits for this answer (it expired, or its state is not the one sent). Start again from the inspector.';
    return {
      status: done ? 200 : 400,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...PAGE_HEADERS },
      body: `<!doctype html><meta charset="utf-8"><title>mcplite inspector</title><p>${escapeHtml(said)}</p>`,
    };
  }

  async function apiRoute(request: NeutralRequest, route: string): Promise<NeutralResponse> {
    if (route === 'auth') {
      if (request.method !== 'GET') throw new McpLiteError('method_not_allowed', 'Use GET');
      return json(200, options.signIn ? await options.signIn.status() : { state: 'none' });
    }
    if (route === 'info' || route === 'tools' || route === 'prompts') {
      if (request.method !== 'GET') throw new McpLiteError('method_not_allowed', 'Use GET');
      if (route === 'tools') return api.tools(request);
      if (route === 'prompts') return api.prompts(request);
      return json(200, {
        binding: options.target.binding,
        target: options.target.target ?? targetUrl(request),
        requiresToken: options.requiresToken ?? false,
      });
    }
    const action = POST_ROUTES[route];
    if (!action) throw new McpLiteError('method_not_found', `Not found: ${request.path}`);
    if (request.method !== 'POST') throw new McpLiteError('method_not_allowed', 'Use POST');
    assertJsonBodyHeaders(request.headers);
    const body = parseJsonBody(await request.readBody(maxBody));
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new McpLiteError('invalid_request', 'The body must be a JSON object');
    }
    const fields = body as Record<string, unknown>;
    switch (action) {
      case 'snippets':
        return json(200, api.snippets(fields, options.target.target ?? targetUrl(request)));
      case 'call':
        return api.call(request, fields);
      case 'prompt':
        return api.prompt(request, fields);
      case 'view':
        return json(200, await views.prepare(fields.uri, api.roundOptions(request)));
      case 'read':
        return json(200, await views.readForView(fields.uri, api.roundOptions(request)));
      case 'answer':
        return api.answer(request, fields);
      case 'redeem':
        return api.redeem(request, fields);
      default:
        return api.cancel(request, fields);
    }
  }

  /** The inspected server's own URL as the browser reaches it (the Host was checked above). */
  function targetUrl(request: NeutralRequest): string {
    return `http://${request.headers.host}${options.selfBasePath ?? '/mcp-lite/v1/'}`;
  }

  return {
    handler,
    path: mount,
    token,
    callbackPath,
    entryPath: `${mount}?${TOKEN_PARAMETER}=${encodeURIComponent(token)}`,
  };
}

/** The sign-in's redirect route, under the mount. */
const CALLBACK = 'oauth/callback';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const POST_ROUTES: Readonly<
  Record<string, 'snippets' | 'call' | 'prompt' | 'answer' | 'redeem' | 'cancel' | 'view' | 'read'>
> = {
  snippets: 'snippets',
  call: 'call',
  prompt: 'prompt',
  view: 'view',
  read: 'read',
  answer: 'answer',
  redeem: 'redeem',
  cancel: 'cancel',
};

const STATUS: Partial<Record<McpLiteError['code'], number>> = {
  parse_error: 400,
  invalid_request: 400,
  invalid_params: 400,
  // A view read as the page's principal (the inspector on a server with auth on) that names none.
  unauthenticated: 401,
  forbidden: 403,
  method_not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  resource_exhausted: 429,
  cancelled: 499,
};

function withSlashes(path: string): string {
  let p = path.startsWith('/') ? path : `/${path}`;
  if (!p.endsWith('/')) p += '/';
  return p;
}
