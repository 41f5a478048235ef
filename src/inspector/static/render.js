// @ts-check
/** Rendering of one round: the outcome (each kind distinct), `_meta`, the raw request and response. */
import { el } from './form.js';

/** @param {unknown} value */
export function pretty(value) {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2) ?? String(value);
}

// Keyed by core's outcome kinds, so the compiler (npm run lint) finds this table when a kind is added.
/** @type {Readonly<Record<import('../../core/outcomes.js').ResponseType | 'error', string>>} */
const TITLES = {
  answer: 'Answer',
  failure: 'Failure',
  promise: 'Promise',
  elicitation: 'Elicitation',
  'request-for-more-resource': 'Request for more resource',
  error: 'Protocol error',
};

/**
 * A panel for an outcome; promises and elicitations get their interactive parts from app.js.
 * @param {any} outcome @returns {HTMLElement}
 */
export function outcomePanel(outcome) {
  const type = outcome?.type ?? 'error';
  const panel = el('div', { class: `outcome outcome-${type}`, 'data-outcome': type, role: 'status' }, [
    el('h3', { text: TITLES[/** @type {keyof typeof TITLES} */ (type)] ?? type }),
  ]);
  switch (type) {
    case 'answer':
      panel.append(el('pre', { class: 'value', text: pretty(outcome.result) }));
      break;
    case 'failure':
      panel.append(el('p', { class: 'message', text: outcome.message }));
      if (outcome.code) panel.append(row('code', outcome.code));
      if (outcome.details !== undefined)
        panel.append(el('pre', { class: 'value', text: pretty(outcome.details) }));
      break;
    case 'request-for-more-resource': {
      const unit = outcome.unit ? ` ${outcome.unit}` : '';
      panel.append(el('p', { class: 'message', text: outcome.message }));
      panel.append(row('resource', outcome.resource));
      panel.append(row('requested', `${outcome.requested}${unit}`));
      if (outcome.granted !== undefined) panel.append(row('granted', `${outcome.granted}${unit}`));
      break;
    }
    case 'elicitation':
      panel.append(el('p', { class: 'message', text: outcome.message }));
      break;
    case 'promise':
      break;
    default: {
      const error = outcome?.error ?? {};
      panel.append(el('p', { class: 'message', text: error.message ?? 'Unknown error' }));
      panel.append(row('code', String(error.code ?? '')));
      if (error.status) panel.append(row('HTTP status', String(error.status)));
      const problems = error.data?.errors;
      if (Array.isArray(problems)) {
        panel.append(
          el(
            'ul',
            { class: 'problems' },
            problems.map((p) => el('li', { text: `${p.field ?? '(value)'}: ${p.message ?? 'is invalid'}` })),
          ),
        );
      }
      if (error.data?.suggestion)
        panel.append(el('p', { class: 'message', text: String(error.data.suggestion) }));
      if (error.data !== undefined) panel.append(el('pre', { class: 'value', text: pretty(error.data) }));
    }
  }
  return panel;
}

/** @param {string} label @param {string} value */
function row(label, value) {
  return el('p', { class: 'row' }, [
    el('span', { class: 'label', text: `${label}: ` }),
    el('code', { text: value }),
  ]);
}

/** `_meta`, plainly: one line per field. @param {HTMLElement} dl @param {Record<string, unknown> | undefined} meta */
export function renderMeta(dl, meta) {
  dl.replaceChildren();
  if (!meta) {
    dl.append(el('dt', { text: '(none)' }), el('dd', { text: 'this response carries no _meta' }));
    return;
  }
  for (const [k, v] of Object.entries(meta)) {
    dl.append(el('dt', { text: k }), el('dd', { text: typeof v === 'string' ? v : JSON.stringify(v) }));
  }
}

/** The raw exchange: an SSE response is shown as the event text it was. @param {any} response */
export function rawResponse(response) {
  if (response === undefined) return '(waiting…)';
  if (response && typeof response.events === 'string') {
    return `HTTP ${response.status} ${response.contentType}\n\n${response.events}`;
  }
  return pretty(response);
}
