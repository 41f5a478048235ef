// @ts-check
/** The inspector page: catalog, call form, live rounds, history, copy-as. */
import { getJson, postJson, postRound, setBearer } from './api.js';
import { isAppOnly, openView, viewOf } from './apps.js';
import { clearErrors, el, markErrors, markMissing, renderSchemaForm } from './form.js';
import { promisePanel } from './promise.js';
import { hidePrompt, loadPrompts } from './prompts.js';
import { outcomePanel, pretty, rawResponse, renderMeta } from './render.js';

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @type {any[]} */
let tools = [];
/** @type {any} */
let current;
/** @type {() => { args: Record<string, unknown>, missing: string[] }} */
let readForm = () => ({ args: {}, missing: [] });
/** @type {AbortController | undefined} */
let running;
/** The MCP Apps view of the last call, while it is shown. @type {import('./apps.js').ViewHandle | undefined} */
let view;
/** @type {{ tool: string, args: Record<string, unknown>, outcome: string, at: string }[]} */
const calls = JSON.parse(sessionStorage.getItem('mcplite-history') ?? '[]');
const MAX_HISTORY = 50;

async function start() {
  // Both at once: the catalog does not wait for the header's details.
  const listing = getJson('tools');
  const info = await getJson('info');
  $('target').textContent = info.body.target ?? '';
  $('binding').textContent = info.body.binding ?? '';
  if (info.body.requiresToken) $('auth').hidden = false;
  $('auth').addEventListener('submit', (e) => {
    e.preventDefault();
    setBearer(/** @type {HTMLInputElement} */ ($('auth-token')).value);
    void loadTools();
  });
  $('call-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const { args, missing } = readForm();
    clearErrors($('call-form'));
    // A call without a required field would only come back as the server's error: say it here, send nothing.
    if (missing.length > 0) markMissing($('call-form'), missing);
    else void call(current.name, args);
  });
  for (const button of document.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', () => void copy(button.getAttribute('data-copy') ?? 'cli'));
  }
  renderHistory();
  void watchSignIn();
  await loadTools(listing);
  // After the tools: a protected target's catalog waits for the sign-in, and the prompts ride on the same one.
  void loadPrompts(leaveTool);
}

/** A prompt was picked: the tool view goes, and with it any view it showed. */
function leaveTool() {
  current = undefined;
  for (const b of document.querySelectorAll('.tool-link[data-tool]')) b.classList.remove('selected');
  void closeView('a prompt was selected');
}

/**
 * A protected target is signed in to from this page: while the inspector's client waits for a sign-in (the
 * catalog or a call waiting with it), the page offers the authorization server's page; once the browser came back
 * to the inspector's callback, it says who is signed in, and the waiting round carries on by itself.
 */
async function watchSignIn() {
  for (;;) {
    const { status, body } = await getJson('auth').catch(() => ({ status: 0, body: {} }));
    if (status === 200 && body.state === 'none') return;
    if (status === 200) showSignIn(body);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** @param {{ state: string, server: string, authorizationUrl?: string, subject?: string }} auth */
function showSignIn(auth) {
  const box = $('signin');
  if (auth.state === 'pending' && auth.authorizationUrl) {
    const link = el('a', {
      href: auth.authorizationUrl,
      target: '_blank',
      rel: 'noopener',
      class: 'primary',
    });
    link.textContent = 'Sign in';
    box.replaceChildren(el('span', { text: `Sign in to ${auth.server} ` }), link);
    box.dataset.state = 'pending';
    box.hidden = false;
  } else if (auth.state === 'signed-in') {
    const who = auth.subject ? `Signed in as ${auth.subject}` : `Signed in to ${auth.server}`;
    if (box.textContent !== who) box.replaceChildren(el('span', { text: who, title: auth.server }));
    box.dataset.state = 'signed-in';
    box.hidden = false;
  } else {
    box.hidden = true;
  }
}

/** @param {Promise<{status: number, body: any}>} [listing] a listing already asked for */
async function loadTools(listing) {
  const nav = $('catalog');
  const { status, body } = await (listing ?? getJson('tools'));
  if (status !== 200) {
    nav.replaceChildren(el('h2', { text: 'Tools' }), outcomePanel({ type: 'error', error: body.error }));
    return;
  }
  tools = body.tools;
  // Grouped by `@type`, in first-seen order, tools without one last; app-only tools (MCP Apps) apart: a model never
  // sees them, only their server's views call them.
  /** @type {Map<string, any[]>} */
  const groups = new Map();
  for (const t of tools) {
    const type = isAppOnly(t) ? APP_ONLY : (t['@type'] ?? 'other');
    groups.set(type, [...(groups.get(type) ?? []), t]);
  }
  if (groups.has(APP_ONLY)) {
    const appOnly = /** @type {any[]} */ (groups.get(APP_ONLY));
    groups.delete(APP_ONLY);
    groups.set(APP_ONLY, appOnly);
  }
  nav.replaceChildren(el('h2', { text: `Tools (${tools.length})` }));
  for (const [type, list] of groups) {
    const items = list.map((t) => {
      const button = el('button', { type: 'button', class: 'tool-link', 'data-tool': t.name, text: t.name });
      if (t.description) button.title = t.description;
      if (viewOf(t).resourceUri && !isAppOnly(t))
        button.append(
          el('span', { class: 'badge view-badge', text: 'view', title: 'Renders an MCP Apps view' }),
        );
      button.addEventListener('click', () => select(t.name));
      return el('li', {}, [button]);
    });
    nav.append(
      el('section', { class: 'group', 'data-type': type }, [
        el('h3', {
          text: type === APP_ONLY ? 'App only (hidden from models; views call them)' : `@type ${type}`,
        }),
        el('ul', {}, items),
      ]),
    );
  }
  // For load-time measurements (the browser test logs it): the page is usable from here on.
  performance.mark('mcplite-catalog');
  const wanted = decodeURIComponent(location.hash.slice(1));
  if (wanted && tools.some((t) => t.name === wanted)) select(wanted);
}

/** @param {string} name @param {Record<string, unknown>} [args] */
function select(name, args) {
  current = tools.find((t) => t.name === name);
  if (!current) return;
  hidePrompt();
  window.history.replaceState(null, '', `#${encodeURIComponent(name)}`);
  for (const b of document.querySelectorAll('.tool-link'))
    b.classList.toggle('selected', b.getAttribute('data-tool') === name);
  $('empty').hidden = true;
  $('tool-view').hidden = false;
  $('tool-name').textContent = current.title ? `${current.title} (${name})` : name;
  $('tool-description').textContent = current.description ?? '';
  readForm = renderSchemaForm(current.inputSchema ?? {}, $('fields'), args);
  $('copy-text').hidden = true;
  $('result').hidden = true;
  void closeView('another tool was selected');
}

/** Tears the shown view down, if any; resolves once it is gone. @param {string} reason */
async function closeView(reason) {
  const shown = view;
  view = undefined;
  if (!shown) return;
  await shown.close(reason);
  if (!view) $('app-view').hidden = true;
}

/** Runs a call and shows it live. @param {string} tool @param {Record<string, unknown>} args */
async function call(tool, args) {
  clearErrors($('call-form'));
  const stream = /** @type {HTMLInputElement} */ ($('stream')).checked;
  await closeView('the tool was called again');
  // The view loads while the tool runs (the spec's order); its result is held until the view is initialized.
  const listed = tools.find((t) => t.name === tool);
  if (listed && viewOf(listed).resourceUri) view = openView($('app-view'), { tool: listed, args, tools });
  const outcome = await round('call', { tool, arguments: args, stream }, true);
  remember(tool, args, outcome?.type ?? 'error');
}

/**
 * One round through the local API, shown as it happens; resolves with its outcome.
 * @param {string} route @param {unknown} body @param {boolean} fresh whether it starts a new call (clears the view)
 * @returns {Promise<any>}
 */
async function round(route, body, fresh) {
  running?.abort();
  const controller = new AbortController();
  running = controller;
  $('result').hidden = false;
  if (fresh) {
    $('partials').replaceChildren();
    $('partials-title').hidden = true;
  }
  $('outcome').replaceChildren(el('p', { class: 'muted', text: 'Waiting for the server…' }));
  $('raw-response').textContent = '(waiting…)';
  $('answered-by').textContent = '';
  /** @type {any} */
  let outcome;
  try {
    await postRound(
      route,
      body,
      (event, data) => {
        if (controller !== running) return;
        if (event === 'request') {
          $('raw-request').textContent = pretty(data.request);
        } else if (event === 'partial') {
          const list = $('partials');
          // Text partials often start with blank lines (paragraph breaks): shown trimmed, kept whole in the answer.
          const text = typeof data.data === 'string' ? data.data.trim() : pretty(data.data);
          list.append(el('li', { class: 'partial', text }));
          $('partials-title').hidden = false;
          list.scrollTop = list.scrollHeight;
        } else if (event === 'result') {
          outcome = data.outcome;
          show(data, route);
        }
      },
      controller.signal,
    );
  } catch (err) {
    if (controller.signal.aborted) return undefined;
    outcome = { type: 'error', error: { code: 'network', message: String(err) } };
    show({ outcome, exchange: {} });
  }
  return outcome;
}

/** @param {any} data @param {string} [route] the local API route of the round (`call`, `answer`, `redeem`, `cancel`) */
function show(data, route = 'call') {
  const { outcome } = data;
  // The view hears how the call ended: cancelled from the page, or its result (a promise or an elicitation has not
  // ended it yet).
  if (view && route === 'cancel') view.cancelled('cancelled from the inspector');
  else if (view && outcome?.type !== 'promise' && outcome?.type !== 'elicitation') view.setResult(data);
  const panel = outcomePanel(outcome);
  $('outcome').replaceChildren(panel);
  renderMeta(/** @type {HTMLElement} */ ($('meta')), data.meta);
  if (data.exchange?.request) $('raw-request').textContent = pretty(data.exchange.request);
  // Bindings spoken through mcplite/client keep their wire inside the client: say whose view this is.
  const viaClient = data.exchange?.request?.via === 'mcplite/client';
  $('raw-request-title').textContent = viaClient ? 'Request (as the client was asked)' : 'Request';
  $('raw-response-title').textContent = viaClient ? 'Response (the outcome the client returned)' : 'Response';
  $('raw-response').textContent = rawResponse(data.exchange?.response);
  $('answered-by').textContent = data.binding ? `answered by ${data.binding} in ${data.elapsedMs} ms` : '';
  if (outcome?.type === 'error' && Array.isArray(outcome.error?.data?.errors)) {
    markErrors($('call-form'), outcome.error.data.errors);
  }
  if (outcome?.type === 'promise') {
    promisePanel(panel, outcome, {
      redeem: () => void round('redeem', { token: outcome.token, waitMs: 5000 }, false),
      cancel: () => void round('cancel', { token: outcome.token }, false),
    });
  }
  if (outcome?.type === 'elicitation')
    elicitationForm(panel, outcome, data.elicitationId, data.elicitationRefused);
}

/**
 * @param {HTMLElement} panel @param {any} outcome @param {string | undefined} id
 * @param {string | undefined} refused why it cannot be answered here
 */
function elicitationForm(panel, outcome, id, refused) {
  if (!id) {
    panel.append(el('p', { class: 'message', text: refused ?? 'This elicitation cannot be answered here.' }));
    return;
  }
  const form = el('form', { id: 'elicitation-form', novalidate: '' });
  const fields = el('div');
  const read = renderSchemaForm(outcome.requestedSchema, fields);
  form.append(
    fields,
    el('div', { class: 'actions' }, [el('button', { type: 'submit', class: 'primary', text: 'Send' })]),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const { args: values, missing } = read();
    clearErrors(form);
    if (missing.length > 0) {
      markMissing(form, missing);
      return;
    }
    void round('answer', { id, values }, false).then((o) => {
      if (o?.type === 'error' && Array.isArray(o.error?.data?.errors)) markErrors(form, o.error.data.errors);
    });
  });
  panel.append(form);
}

/** @param {string} tool @param {Record<string, unknown>} args @param {string} outcome */
function remember(tool, args, outcome) {
  calls.unshift({ tool, args, outcome, at: new Date().toLocaleTimeString() });
  calls.length = Math.min(calls.length, MAX_HISTORY);
  sessionStorage.setItem('mcplite-history', JSON.stringify(calls));
  renderHistory();
}

function renderHistory() {
  $('history-list').replaceChildren(
    ...calls.map((h) => {
      const again = el('button', { type: 'button', class: 'rerun', text: 'Re-run' });
      again.addEventListener('click', () => {
        select(h.tool, h.args);
        void call(h.tool, h.args);
      });
      const open = el('button', {
        type: 'button',
        class: 'link',
        text: h.tool,
        title: 'Open with these arguments',
      });
      open.addEventListener('click', () => select(h.tool, h.args));
      return el('li', { class: `history-${h.outcome}` }, [
        open,
        el('span', { class: 'badge', text: h.outcome }),
        el('small', { class: 'muted', text: ` ${h.at} ${JSON.stringify(h.args).slice(0, 60)}` }),
        again,
      ]);
    }),
  );
}

/** Shows (and copies) the current form's call as curl, a `mcplite call` line or client code. @param {string} kind */
async function copy(kind) {
  if (!current) return;
  const { body } = await postJson('snippets', { tool: current.name, arguments: readForm().args });
  const text =
    body[kind] ?? body.error?.message ?? `no ${kind} form for a ${$('binding').textContent} target`;
  const pre = $('copy-text');
  pre.textContent = text;
  pre.hidden = false;
  navigator.clipboard?.writeText(text).catch(() => {});
}

/** The catalog group of app-only tools. */
const APP_ONLY = 'app-only';

void start();
