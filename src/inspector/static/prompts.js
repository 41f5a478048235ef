// @ts-check
/**
 * The Prompts panel: the target's prompts beside its tools, a form for one prompt's arguments (prompt arguments
 * are strings), and the rendered messages with the exchange that rendered them.
 */
import { getJson, postJson } from './api.js';
import { clearErrors, el, markMissing, renderSchemaForm } from './form.js';
import { outcomePanel, pretty, rawResponse } from './render.js';

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @type {any[]} */
let prompts = [];
/** @type {any} */
let current;
/** @type {() => { args: Record<string, unknown>, missing: string[] }} */
let readForm = () => ({ args: {}, missing: [] });
/** Called when a prompt is picked, so that the page lets go of the tool it showed. @type {() => void} */
let onPick = () => {};
/** The rendering the page waits for; an older one that answers late is not shown. */
let asked = 0;

/** The hash a prompt is opened by (tools have the bare name). */
const HASH = 'prompt=';

/**
 * Lists the prompts in the side panel, and opens the one the address names. A target that carries none (an empty
 * list, or a wire without prompts) leaves the panel hidden; another error is shown in it.
 * @param {() => void} picked called when a prompt is picked (app.js hides the tool view)
 */
export async function loadPrompts(picked) {
  onPick = picked;
  $('prompt-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const { args, missing } = readForm();
    clearErrors($('prompt-form'));
    if (missing.length > 0) markMissing($('prompt-form'), missing);
    else void render(current.name, /** @type {Record<string, string>} */ (args));
  });
  const nav = $('prompts');
  const { status, body } = await getJson('prompts');
  if (status !== 200) {
    const code = body.error?.code;
    if (code === 'method_not_found' || code === -32601) return;
    nav.replaceChildren(el('h2', { text: 'Prompts' }), outcomePanel({ type: 'error', error: body.error }));
    nav.hidden = false;
    return;
  }
  // What a server listed is shown only where it has the shape of a prompt: a broken listing must not break the page.
  prompts = (Array.isArray(body.prompts) ? body.prompts : []).filter(
    (/** @type {any} */ p) => typeof p?.name === 'string',
  );
  if (prompts.length === 0) return;
  const items = prompts.map((p) => {
    const button = el('button', { type: 'button', class: 'tool-link', 'data-prompt': p.name, text: p.name });
    if (p.description) button.title = p.description;
    button.addEventListener('click', () => select(p.name));
    return el('li', {}, [button]);
  });
  nav.replaceChildren(el('h2', { text: `Prompts (${prompts.length})` }), el('ul', {}, items));
  nav.hidden = false;
  const hash = decodeURIComponent(location.hash.slice(1));
  if (hash.startsWith(HASH)) select(hash.slice(HASH.length));
}

/** Hides the prompt view (a tool was picked). */
export function hidePrompt() {
  current = undefined;
  asked++;
  $('prompt-view').hidden = true;
  for (const b of document.querySelectorAll('[data-prompt]')) b.classList.remove('selected');
}

/** @param {string} name */
function select(name) {
  const found = prompts.find((p) => p.name === name);
  if (!found) return;
  onPick();
  current = found;
  window.history.replaceState(null, '', `#${HASH}${encodeURIComponent(name)}`);
  for (const b of document.querySelectorAll('[data-prompt]'))
    b.classList.toggle('selected', b.getAttribute('data-prompt') === name);
  $('empty').hidden = true;
  $('tool-view').hidden = true;
  $('prompt-view').hidden = false;
  $('prompt-name').textContent = found.title ? `${found.title} (${name})` : name;
  $('prompt-description').textContent = found.description ?? '';
  const args = Array.isArray(found.arguments) ? found.arguments : [];
  readForm = renderSchemaForm(
    argumentSchema(args.filter((/** @type {any} */ a) => typeof a?.name === 'string')),
    $('prompt-fields'),
  );
  $('prompt-result').hidden = true;
}

/**
 * A prompt's arguments as the object schema the form renders: each a string, with its description.
 * @param {{ name: string, title?: string, description?: string, required?: boolean }[]} args
 */
function argumentSchema(args) {
  /** @type {Record<string, unknown>} */
  const properties = {};
  for (const a of args) {
    properties[a.name] = {
      type: 'string',
      ...(a.title ? { title: a.title } : {}),
      ...(a.description ? { description: a.description } : {}),
    };
  }
  return {
    type: 'object',
    properties,
    required: args.filter((a) => a.required).map((a) => a.name),
  };
}

/** Renders the prompt through the local API and shows its messages. @param {string} name @param {Record<string, string>} args */
async function render(name, args) {
  const mine = ++asked;
  $('prompt-result').hidden = false;
  $('prompt-messages').replaceChildren();
  $('prompt-outcome').replaceChildren(el('p', { class: 'muted', text: 'Waiting for the server…' }));
  $('prompt-raw-request').textContent = pretty({ name, arguments: args });
  $('prompt-raw-response').textContent = '(waiting…)';
  $('prompt-answered-by').textContent = '';
  const { status, body } = await postJson('prompt', { name, arguments: args }).catch((err) => ({
    status: 0,
    body: { error: { code: 'network', message: String(err) } },
  }));
  if (mine !== asked) return;
  const viaClient = body.exchange?.request?.via === 'mcplite/client';
  $('prompt-raw-request-title').textContent = viaClient ? 'Request (as the client was asked)' : 'Request';
  $('prompt-raw-response-title').textContent = viaClient ? 'Response (what the client returned)' : 'Response';
  if (body.exchange?.request) $('prompt-raw-request').textContent = pretty(body.exchange.request);
  $('prompt-raw-response').textContent = rawResponse(body.exchange?.response ?? body);
  $('prompt-answered-by').textContent = body.binding
    ? `answered by ${body.binding} in ${body.elapsedMs} ms`
    : '';
  if (status !== 200) {
    $('prompt-outcome').replaceChildren(outcomePanel({ type: 'error', error: body.error }));
    return;
  }
  const { prompt } = body;
  $('prompt-outcome').replaceChildren(
    ...(typeof prompt?.description === 'string'
      ? [el('p', { class: 'description', text: prompt.description })]
      : []),
  );
  $('prompt-messages').replaceChildren(
    ...(Array.isArray(prompt?.messages) ? prompt.messages : []).map((/** @type {any} */ m) =>
      messageItem(m ?? {}),
    ),
  );
}

/** One rendered message: its role, and its content as a person reads it. @param {any} message */
function messageItem(message) {
  return el('li', { class: 'prompt-message', 'data-role': String(message.role) }, [
    el('span', { class: 'badge', text: String(message.role) }),
    contentOf(message.content),
  ]);
}

/**
 * A content block: text as text, an embedded resource (a composed prompt) with its URI and text, anything else
 * (images, audio, links) as its JSON.
 * @param {any} content @returns {HTMLElement}
 */
function contentOf(content) {
  if (typeof content !== 'object' || content === null)
    return el('pre', { class: 'value', text: pretty(content) });
  if (content.type === 'text')
    return el('pre', { class: 'value', 'data-content': 'text', text: content.text });
  if (content.type === 'resource') {
    const r = content.resource ?? {};
    const label = `resource ${r.uri ?? ''}${r.mimeType ? ` (${r.mimeType})` : ''}`;
    return el('div', { 'data-content': 'resource' }, [
      el('p', { class: 'row', text: label }),
      el('pre', {
        class: 'value',
        text: typeof r.text === 'string' ? r.text : `(${String(r.blob ?? '').length} base64 characters)`,
      }),
    ]);
  }
  return el('pre', { class: 'value', 'data-content': String(content.type), text: pretty(content) });
}
