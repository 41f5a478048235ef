// @ts-check
/**
 * The page as an MCP Apps host (SEP-1865, 2026-01-26): a tool whose listing names a `ui://` view gets it rendered
 * in an iframe sandboxed to an opaque origin (`allow-scripts` only), loaded from the inspector's `view/<id>` route,
 * which serves it with the Content-Security-Policy built from the server's declared origins. The page speaks the
 * view protocol (JSON-RPC over postMessage) with that one window and validates every message it gets from it.
 */
import { postJson, postRound } from './api.js';
import { el } from './form.js';

const PROTOCOL_VERSION = '2026-01-26';
/** The most characters of one message from a view, as JSON: a view must not flood the page. */
const MAX_MESSAGE_CHARS = 1024 * 1024;
const MAX_METHOD = 128;
const MAX_LOG = 200;
const MAX_HEIGHT = 2000;
const MIN_HEIGHT = 40;
/** How long a view gets to answer `ui/resource-teardown` before it goes anyway. */
const TEARDOWN_WAIT_MS = 3000;

/** @param {unknown} v @returns {v is Record<string, any>} */
const isRecord = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A listed tool's view and visibility, whichever shape the listing has: `ui` (mcplite/client's tool info),
 * `_meta.ui`, or the deprecated flat `_meta["ui/resourceUri"]`.
 * @param {any} tool @returns {{ resourceUri: string | undefined, visibility: string[] }}
 */
export function viewOf(tool) {
  const meta = isRecord(tool?._meta) ? tool._meta : {};
  const ui = isRecord(tool?.ui) ? tool.ui : isRecord(meta.ui) ? meta.ui : {};
  const uri = typeof ui.resourceUri === 'string' ? ui.resourceUri : meta['ui/resourceUri'];
  const visibility = Array.isArray(ui.visibility)
    ? ui.visibility.filter((/** @type {unknown} */ v) => v === 'model' || v === 'app')
    : ['model', 'app'];
  return { resourceUri: typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined, visibility };
}

/** Whether a model may not see the tool (`visibility` without "model"): only its server's views call it. @param {any} tool */
export const isAppOnly = (tool) => !viewOf(tool).visibility.includes('model');

/**
 * A round's result as the MCP `CallToolResult` a view expects: the content blocks where the wire kept them (a text
 * block of the value otherwise) and the value as `structuredContent` when it is an object.
 * @param {any} data a `result` event of the local API @returns {Record<string, unknown>}
 */
export function toCallToolResult(data) {
  const outcome = data?.outcome ?? {};
  if (outcome.type === 'answer') {
    const value = outcome.result;
    const raw = isRecord(value) && Array.isArray(value.content) ? value.content : undefined;
    const content = data.exchange?.response?.content ??
      raw ?? [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }];
    return { content, ...(isRecord(value) && !raw ? { structuredContent: value } : {}) };
  }
  const text =
    outcome.type === 'failure'
      ? outcome.message
      : outcome.type === 'error'
        ? `${outcome.error?.code}: ${outcome.error?.message}`
        : `The call ended with a ${outcome.type} the view cannot take`;
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * Why a message from the view is refused, or undefined when it is a well-formed JSON-RPC message.
 * @param {unknown} msg @returns {string | undefined}
 */
function problemOf(msg) {
  if (!isRecord(msg) || msg.jsonrpc !== '2.0') return 'not a JSON-RPC 2.0 message';
  let size;
  try {
    size = JSON.stringify(msg).length;
  } catch {
    return 'not JSON';
  }
  if (size > MAX_MESSAGE_CHARS) return `larger than ${MAX_MESSAGE_CHARS} characters`;
  if ('id' in msg && !validId(msg.id)) return 'a bad id';
  if ('method' in msg) {
    if (typeof msg.method !== 'string' || msg.method.length === 0 || msg.method.length > MAX_METHOD)
      return 'a bad method';
    if ('params' in msg && msg.params !== undefined && !isRecord(msg.params)) return 'params not an object';
    return undefined;
  }
  return 'id' in msg && ('result' in msg || 'error' in msg) ? undefined : 'neither a request nor a response';
}

/** @param {unknown} id */
const validId = (id) =>
  (typeof id === 'string' && id.length <= 128) || (typeof id === 'number' && Number.isSafeInteger(id));

/**
 * @typedef {{ setResult(data: any): void, cancelled(reason: string): void, close(reason: string): Promise<void> }} ViewHandle
 */

/**
 * Opens the view of `tool` (called with `args`) in `panel`; the round's result goes in with `setResult`, and
 * `close` tears the view down (asking it first, as the spec wants, when it got as far as initializing).
 * @param {HTMLElement} panel @param {{ tool: any, args: Record<string, unknown>, tools: any[] }} call
 * @returns {ViewHandle}
 */
export function openView(panel, { tool, args, tools }) {
  const uri = /** @type {string} */ (viewOf(tool).resourceUri);
  const status = el('p', { class: 'muted', text: `Loading the view ${uri}…` });
  const messages = el('ol', { class: 'view-messages', 'aria-label': 'Messages from the view' });
  const log = el('ol', { class: 'view-log', 'aria-label': 'View protocol log' });
  const policy = el('pre', { class: 'view-csp' });
  const frameBox = el('div', { class: 'view-frame' });
  panel.replaceChildren(
    el('h3', { text: `View ${uri}` }),
    status,
    frameBox,
    el('h4', { text: 'Messages from the view' }),
    messages,
    el('details', {}, [el('summary', { text: 'Content-Security-Policy of the view' }), policy]),
    el('details', {}, [el('summary', { text: 'Protocol log' }), log]),
  );
  panel.hidden = false;

  /** @type {HTMLIFrameElement | undefined} */
  let frame;
  let initialized = false;
  let inputSent = false;
  let closed = false;
  /** The call's end (its result, or its cancellation), held until the view is initialized. @type {{ method: string, params: Record<string, unknown> } | undefined} */
  let heldResult;
  let nextId = 1;
  /** @type {Map<string | number, (msg: any) => void>} */
  const waiting = new Map();
  /** @type {{ permissions?: object, approved?: object }} */
  let prepared = {};

  /** @param {string} direction @param {string} text */
  const note = (direction, text) => append(log, el('li', { text: `${direction} ${text}`.slice(0, 500) }));
  /** @param {Record<string, unknown>} msg */
  const send = (msg) => {
    if (closed || !frame?.contentWindow) return;
    note('→', String(msg.method ?? `response ${msg.id}`));
    // The view's origin is opaque, so no origin can be named: the message goes to this frame's window only.
    frame.contentWindow.postMessage({ jsonrpc: '2.0', ...msg }, '*');
  };
  const flush = () => {
    if (!initialized) return;
    if (!inputSent) {
      inputSent = true;
      send({ method: 'ui/notifications/tool-input', params: { arguments: args } });
    }
    if (heldResult) {
      send({ method: `ui/notifications/${heldResult.method}`, params: heldResult.params });
      heldResult = undefined;
    }
  };

  /** @param {MessageEvent} event */
  const onMessage = (event) => {
    if (closed || !frame || event.source !== frame.contentWindow) return;
    const msg = event.data;
    const problem = problemOf(msg);
    if (problem) {
      note('✗', `refused a message: ${problem}`);
      if (isRecord(msg) && validId(msg.id) && typeof msg.method === 'string')
        send({ id: msg.id, error: { code: -32600, message: `Invalid request: ${problem}` } });
      return;
    }
    if (typeof msg.method !== 'string') {
      waiting.get(msg.id)?.(msg);
      waiting.delete(msg.id);
      return;
    }
    note(
      '←',
      msg.method === 'tools/call' ? `tools/call ${String(msg.params?.name).slice(0, 256)}` : msg.method,
    );
    const params = isRecord(msg.params) ? msg.params : {};
    if (!('id' in msg)) return notification(msg.method, params);
    request(msg.method, params).then(
      (result) => send({ id: msg.id, result }),
      (/** @type {any} */ err) =>
        send({
          id: msg.id,
          error: {
            code: typeof err?.code === 'number' ? err.code : -32603,
            message: String(err?.message ?? err),
          },
        }),
    );
  };

  /** @param {string} method @param {Record<string, any>} params */
  function notification(method, params) {
    if (method === 'ui/notifications/initialized') {
      initialized = true;
      flush();
    } else if (method === 'ui/notifications/size-changed' && frame) {
      const h = Number(params.height);
      if (Number.isFinite(h))
        frame.style.height = `${Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(h)))}px`;
    } else if (method === 'notifications/message') {
      note('log', `${params.level ?? 'info'}: ${JSON.stringify(params.data ?? '')}`);
    }
  }

  /** @param {string} method @param {Record<string, any>} params @returns {Promise<unknown>} */
  async function request(method, params) {
    switch (method) {
      case 'ui/initialize':
        return {
          protocolVersion: PROTOCOL_VERSION,
          hostInfo: { name: 'mcplite-inspector', version: '1' },
          hostCapabilities: {
            openLinks: {},
            serverTools: {},
            serverResources: {},
            logging: {},
            sandbox: { permissions: prepared.permissions ?? {}, csp: prepared.approved ?? {} },
          },
          hostContext: {
            toolInfo: { tool },
            theme: matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
            displayMode: 'inline',
            availableDisplayModes: ['inline'],
            containerDimensions: { width: frame?.clientWidth ?? 0, maxHeight: MAX_HEIGHT },
            locale: navigator.language,
            timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
            userAgent: 'mcplite-inspector',
            platform: 'web',
          },
        };
      case 'ping':
        return {};
      case 'tools/call':
        return callTool(params);
      case 'resources/read': {
        const { status, body } = await postJson('read', { uri: params.uri });
        if (status !== 200) throw rpcError(-32602, body.error?.message ?? `HTTP ${status}`);
        return body;
      }
      case 'ui/message':
        return message(params);
      case 'ui/open-link':
        return openLink(params.url);
      case 'ui/update-model-context':
        append(
          messages,
          el('li', {
            class: 'view-context',
            text: `model context: ${JSON.stringify(params).slice(0, 2000)}`,
          }),
        );
        return {};
      case 'ui/request-display-mode':
        return { mode: 'inline' };
      default:
        throw rpcError(-32601, `Method not found: ${method}`);
    }
  }

  /** The view's call, to its own server through the local API: app-only tools included, model-only ones refused. @param {Record<string, any>} params */
  async function callTool(params) {
    const name = params.name;
    if (typeof name !== 'string' || name.length === 0 || name.length > 256)
      throw rpcError(-32602, '"name" must be a tool name');
    if (params.arguments !== undefined && !isRecord(params.arguments))
      throw rpcError(-32602, '"arguments" must be an object');
    const listed = tools.find((t) => t.name === name);
    if (listed && !viewOf(listed).visibility.includes('app'))
      throw rpcError(-32602, `${name} is not callable from a view (its visibility has no "app")`);
    /** @type {any} */
    let result;
    await postRound(
      'call',
      { tool: name, arguments: params.arguments ?? {}, stream: false },
      (event, data) => {
        if (event === 'result') result = data;
      },
    );
    const outcome = result?.outcome;
    if (!outcome || outcome.type === 'error') {
      const code = outcome?.error?.code;
      throw rpcError(typeof code === 'number' ? code : -32603, outcome?.error?.message ?? 'The call failed');
    }
    return toCallToolResult(result);
  }

  /** @param {Record<string, any>} params */
  function message(params) {
    // An array of content blocks (the ext-apps schema), whatever the spec's prose example shows.
    if (!Array.isArray(params.content))
      throw rpcError(-32602, '"content" must be an array of content blocks');
    const text = params.content
      .map((/** @type {any} */ b) => (isRecord(b) && b.type === 'text' ? String(b.text) : JSON.stringify(b)))
      .join('\n');
    append(messages, el('li', { class: 'view-message', text: `${String(params.role ?? 'user')}: ${text}` }));
    return {};
  }

  /** Opens http(s) links only, in a new tab that gets no handle on this page. @param {unknown} url */
  function openLink(url) {
    let parsed;
    try {
      parsed = new URL(String(url));
    } catch {
      throw rpcError(-32602, 'Invalid URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw rpcError(-32602, 'Invalid URL: only http and https links open');
    window.open(parsed.href, '_blank', 'noopener,noreferrer');
    note('→', `opened ${parsed.href}`);
    return {};
  }

  window.addEventListener('message', onMessage);
  void (async () => {
    const { status: code, body } = await postJson('view', { uri }).catch((err) => ({
      status: 0,
      body: { error: { message: String(err) } },
    }));
    if (closed) return;
    if (code !== 200) {
      status.textContent = `The view could not be loaded: ${body.error?.message ?? `HTTP ${code}`}`;
      status.className = 'view-error';
      return;
    }
    prepared = body;
    policy.textContent = body.csp;
    if (body.dropped.length > 0)
      note('✗', `dropped CSP entries that are not plain origins: ${body.dropped.join(', ')}`);
    frame = /** @type {HTMLIFrameElement} */ (
      el('iframe', {
        // An opaque origin: never allow-same-origin, which would hand the view this page's origin.
        sandbox: 'allow-scripts',
        src: body.path,
        title: `View of ${tool.name}`,
        class: body.prefersBorder === false ? 'app-view borderless' : 'app-view',
      })
    );
    if (body.allow) frame.allow = body.allow;
    let loads = 0;
    frame.addEventListener('load', () => {
      // A view that navigates its frame elsewhere is no longer the view the server sent.
      if (++loads > 1) finish('the view navigated away');
    });
    frameBox.replaceChildren(frame);
    status.textContent = '';
  })();

  /** @type {ViewHandle} */
  const handle = {
    setResult(data) {
      heldResult = { method: 'tool-result', params: toCallToolResult(data) };
      flush();
    },
    cancelled(reason) {
      heldResult = { method: 'tool-cancelled', params: { reason } };
      flush();
    },
    async close(reason) {
      if (closed) return;
      // Nothing goes to a view before it said it is initialized, a teardown request included.
      let answered = false;
      if (initialized && frame?.contentWindow) {
        const id = `teardown-${nextId++}`;
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, TEARDOWN_WAIT_MS);
          waiting.set(id, () => {
            clearTimeout(timer);
            answered = true;
            resolve(undefined);
          });
          send({ id, method: 'ui/resource-teardown', params: { reason } });
        });
      }
      finish(answered ? `${reason} (the view answered the teardown)` : reason);
    },
  };

  /** Removes the frame and stops listening. @param {string} reason */
  function finish(reason) {
    if (closed) return;
    closed = true;
    window.removeEventListener('message', onMessage);
    frame?.remove();
    status.textContent = `View closed: ${reason}`;
    status.className = 'muted view-closed';
  }
  return handle;
}

/** Appends to a list the view fills, keeping its last MAX_LOG entries. @param {HTMLElement} list @param {HTMLElement} item */
function append(list, item) {
  list.append(item);
  while (list.childElementCount > MAX_LOG) list.firstElementChild?.remove();
}

/** @param {number} code @param {string} message */
function rpcError(code, message) {
  return Object.assign(new Error(message), { code });
}
