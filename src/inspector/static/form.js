// @ts-check
/**
 * JSON Schema to form. Every input's `name` is its property path (`filters.year`, `tags.0`), so the page is
 * scriptable and a server's field errors (which name the same paths) land on the right input.
 */

/** @typedef {Record<string, any>} Schema */
/** @typedef {{ present: boolean, value?: unknown, missing?: string[] }} Read `missing`: required paths left empty */
/** @typedef {{ element: HTMLElement, read: () => Read }} Field */

let ids = 0;

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag @param {Record<string, string>} [attrs] @param {(Node | string)[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

/**
 * Renders `schema` (an object schema) into `container` and returns a function that reads the value back, with the
 * paths of the required fields left empty (those are not in `args`: a person who cleared a field means "nothing",
 * not the empty string). `initial` prefills the fields (a history entry re-run); otherwise the schema's defaults do.
 * @param {Schema} schema @param {HTMLElement} container @param {unknown} [initial]
 * @returns {() => { args: Record<string, unknown>, missing: string[] }}
 */
export function renderSchemaForm(schema, container, initial) {
  container.replaceChildren();
  const root = objectField(schema ?? {}, '', true, initial, true);
  container.append(root.element);
  return () => {
    const read = /** @type {Read} */ (root.read());
    return { args: /** @type {Record<string, unknown>} */ (read.value ?? {}), missing: read.missing ?? [] };
  };
}

/**
 * A required field left empty is not sent, so the page says so itself: beside each such field, and in one line
 * above the form's buttons.
 * @param {HTMLElement} form @param {string[]} missing
 */
export function markMissing(form, missing) {
  markErrors(
    form,
    missing.map((field) => ({ field, message: 'is required' })),
  );
  const found = form.querySelector('.form-problems');
  const summary = found instanceof HTMLElement ? found : el('p', { class: 'form-problems', role: 'alert' });
  if (!found) {
    const actions = form.querySelector('.actions');
    if (actions) actions.before(summary);
    else form.append(summary);
  }
  summary.textContent = `Not sent: fill in the required ${missing.length === 1 ? 'field' : 'fields'} ${missing.join(', ')}`;
  summary.hidden = false;
}

/** @param {boolean} required @param {string} path @returns {Read} */
function empty(required, path) {
  return required ? { present: false, missing: [path] } : { present: false };
}

/** @param {Schema} schema */
function typeOf(schema) {
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== 'null');
  if (type) return type;
  if (Array.isArray(schema.enum)) return 'enum';
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return 'json';
}

/**
 * @param {Schema} schema @param {string} path @param {boolean} required @param {unknown} initial
 * @returns {Field}
 */
function field(schema, path, required, initial) {
  const value = initial !== undefined ? initial : schema.default;
  if (Array.isArray(schema.enum)) return enumField(schema, path, required, value);
  switch (typeOf(schema)) {
    case 'object':
      return objectField(schema, path, required, value, false);
    case 'array':
      return arrayField(schema, path, required, value);
    case 'integer':
    case 'number':
      return numberField(schema, path, required, value);
    case 'boolean':
      return booleanField(schema, path, required, value);
    case 'string':
      return stringField(schema, path, required, value);
    default:
      return jsonField(schema, path, required, value);
  }
}

/**
 * The label, hint and error slot around one input.
 * @param {Schema} schema @param {string} path @param {boolean} required @param {HTMLElement} input
 */
function wrap(schema, path, required, input) {
  const id = `f${++ids}`;
  input.id = id;
  const label = el('label', { for: id }, [lastSegment(path) || 'value']);
  if (required) label.append(el('span', { class: 'required', title: 'required', text: ' *' }));
  const type = typeOf(schema);
  label.append(el('span', { class: 'type', text: ` ${Array.isArray(schema.enum) ? 'enum' : type}` }));
  const parts = [label, input];
  if (schema.description) parts.push(el('small', { class: 'hint', text: schema.description }));
  parts.push(el('small', { class: 'field-error', 'data-error-for': path, hidden: '' }));
  return el('div', { class: 'field' }, parts);
}

/** @param {string} path */
function lastSegment(path) {
  return path.slice(path.lastIndexOf('.') + 1);
}

/** @param {Schema} schema @param {string} path @param {boolean} required @param {unknown} value @param {boolean} root */
function objectField(schema, path, required, value, root) {
  const props = /** @type {Record<string, Schema>} */ (schema.properties ?? {});
  const req = new Set(Array.isArray(schema.required) ? schema.required : []);
  const given = value && typeof value === 'object' ? /** @type {Record<string, unknown>} */ (value) : {};
  const children = Object.entries(props).map(([name, sub]) => ({
    name,
    f: field(sub ?? {}, path ? `${path}.${name}` : name, req.has(name), given[name]),
  }));
  const element = root
    ? el('div', { class: 'object root' })
    : el('fieldset', { class: 'object', 'data-path': path }, [
        el('legend', { text: lastSegment(path) + (required ? ' *' : '') }),
      ]);
  if (!root && schema.description) element.append(el('small', { class: 'hint', text: schema.description }));
  if (children.length === 0 && (root || schema.additionalProperties !== false)) {
    // An open object: its keys are unknown, so it is written as JSON.
    const f = jsonField(schema, path || 'arguments', false, root ? undefined : value);
    return root ? { element: f.element, read: () => ({ present: true, value: f.read().value ?? {} }) } : f;
  }
  for (const { f } of children) element.append(f.element);
  return {
    element,
    read: () => {
      /** @type {Record<string, unknown>} */
      const out = {};
      /** @type {string[]} */
      const missing = [];
      for (const { name, f } of children) {
        const r = f.read();
        if (r.present) out[name] = r.value;
        missing.push(...(r.missing ?? []));
      }
      const present = root || required || Object.keys(out).length > 0;
      // An optional object left wholly empty is not sent, so its required fields are not missing.
      return { present, value: out, ...(present && missing.length > 0 ? { missing } : {}) };
    },
  };
}

/** @param {Schema} schema @param {string} path @param {boolean} required @param {unknown} value */
function enumField(schema, path, required, value) {
  const options = /** @type {unknown[]} */ (schema.enum);
  const select = el('select', { name: path });
  if (!required || value === undefined) select.append(el('option', { value: '', text: '—' }));
  options.forEach((o, i) => {
    const option = el('option', { value: String(i), text: typeof o === 'string' ? o : JSON.stringify(o) });
    if (value !== undefined && JSON.stringify(o) === JSON.stringify(value)) option.selected = true;
    select.append(option);
  });
  return {
    element: wrap(schema, path, required, select),
    read: () =>
      select.value === '' ? empty(required, path) : { present: true, value: options[Number(select.value)] },
  };
}

/** @param {Schema} schema @param {string} path @param {boolean} required @param {unknown} value */
function numberField(schema, path, required, value) {
  const input = el('input', { type: 'number', name: path, step: typeOf(schema) === 'integer' ? '1' : 'any' });
  if (schema.minimum !== undefined) input.min = String(schema.minimum);
  if (schema.maximum !== undefined) input.max = String(schema.maximum);
  if (value !== undefined) input.value = String(value);
  return {
    element: wrap(schema, path, required, input),
    read: () => {
      const text = input.value.trim();
      if (text === '') return empty(required, path);
      const n = Number(text);
      return { present: true, value: Number.isNaN(n) ? text : n };
    },
  };
}

/** @param {Schema} schema @param {string} path @param {boolean} required @param {unknown} value */
function booleanField(schema, path, required, value) {
  if (required || value !== undefined) {
    const input = el('input', { type: 'checkbox', name: path });
    input.checked = value === true;
    return {
      element: wrap(schema, path, required, input),
      read: () => ({ present: true, value: input.checked }),
    };
  }
  // Optional without a default: "not sent" must stay possible, so a checkbox (true/false only) will not do.
  const select = el('select', { name: path }, [
    el('option', { value: '', text: '—' }),
    el('option', { value: 'true', text: 'true' }),
    el('option', { value: 'false', text: 'false' }),
  ]);
  return {
    element: wrap(schema, path, required, select),
    read: () =>
      select.value === '' ? { present: false } : { present: true, value: select.value === 'true' },
  };
}

/** @param {Schema} schema @param {string} path @param {boolean} required @param {unknown} value */
function stringField(schema, path, required, value) {
  const long = (schema.maxLength ?? 0) > 200 || schema.format === 'textarea';
  const type = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' }[
    /** @type {string} */ (schema.format)
  ];
  const input = long
    ? el('textarea', { name: path, rows: '3' })
    : el('input', { type: type ?? 'text', name: path });
  if (schema.examples?.[0] !== undefined) input.placeholder = String(schema.examples[0]);
  if (typeof value === 'string') input.value = value;
  return {
    element: wrap(schema, path, required, input),
    read: () => (input.value === '' ? empty(required, path) : { present: true, value: input.value }),
  };
}

/** @param {Schema} schema @param {string} path @param {boolean} required @param {unknown} value */
function jsonField(schema, path, required, value) {
  const input = el('textarea', { name: path, rows: '3', class: 'json', spellcheck: 'false' });
  input.placeholder = 'JSON';
  if (value !== undefined) input.value = JSON.stringify(value, null, 2);
  return {
    element: wrap(schema, path, required, input),
    read: () => {
      const text = input.value.trim();
      if (text === '') return empty(required, path);
      try {
        return { present: true, value: JSON.parse(text) };
      } catch {
        return { present: true, value: text };
      }
    },
  };
}

/** @param {Schema} schema @param {string} path @param {boolean} required @param {unknown} value */
function arrayField(schema, path, required, value) {
  const itemSchema = /** @type {Schema} */ (schema.items && !Array.isArray(schema.items) ? schema.items : {});
  const list = el('ol', { class: 'items' });
  /** @type {{ row: HTMLElement, f: Field }[]} */
  const rows = [];
  const add = (/** @type {unknown} */ initial) => {
    const f = field(itemSchema, `${path}.${rows.length}`, true, initial);
    const remove = el('button', {
      type: 'button',
      class: 'remove',
      'aria-label': `Remove ${path} item`,
      text: '×',
    });
    const row = el('li', {}, [f.element, remove]);
    const entry = { row, f };
    rows.push(entry);
    list.append(row);
    remove.addEventListener('click', () => {
      rows.splice(rows.indexOf(entry), 1);
      row.remove();
      renumber(path, rows);
    });
  };
  const addButton = el('button', {
    type: 'button',
    class: 'add',
    'data-add': path,
    text: `Add ${lastSegment(path)} item`,
  });
  addButton.addEventListener('click', () => add(undefined));
  const initial = Array.isArray(value) ? value : [];
  for (const v of initial) add(v);
  for (let i = initial.length; i < (schema.minItems ?? 0); i++) add(undefined);
  const element = el('fieldset', { class: 'array', 'data-path': path }, [
    el('legend', { text: `${lastSegment(path)}${required ? ' *' : ''} (list)` }),
    ...(schema.description ? [el('small', { class: 'hint', text: schema.description })] : []),
    list,
    addButton,
  ]);
  return {
    element,
    read: () => {
      const reads = rows.map(({ f }) => f.read());
      const missing = reads.flatMap((r) => r.missing ?? []);
      const items = reads.map((r) => (r.present ? r.value : null));
      return {
        present: required || items.length > 0,
        value: items,
        ...(missing.length > 0 ? { missing } : {}),
      };
    },
  };
}

/**
 * After a removal, the names under each row must say its new index (`tags.2` becomes `tags.1`).
 * @param {string} path @param {{ row: HTMLElement }[]} rows
 */
function renumber(path, rows) {
  rows.forEach(({ row }, i) => {
    for (const node of row.querySelectorAll('[name], [data-error-for], [data-path], [data-add]')) {
      for (const attr of ['name', 'data-error-for', 'data-path', 'data-add']) {
        const v = node.getAttribute(attr);
        if (v?.startsWith(`${path}.`)) {
          const rest = v.slice(path.length + 1).replace(/^\d+/, String(i));
          node.setAttribute(attr, `${path}.${rest}`);
        }
      }
    }
  });
}

/**
 * Shows a server's field errors (`data.errors: [{ field, message }]`) beside the inputs they name; returns how
 * many found their input.
 * @param {HTMLElement} form @param {{ field?: string, message?: string }[]} errors
 */
export function markErrors(form, errors) {
  clearErrors(form);
  let found = 0;
  for (const { field: name, message } of errors) {
    if (!name) continue;
    const slot = [...form.querySelectorAll('[data-error-for]')].find(
      (n) => n.getAttribute('data-error-for') === name,
    );
    const input = [...form.querySelectorAll('[name]')].find((n) => n.getAttribute('name') === name);
    if (input) input.setAttribute('aria-invalid', 'true');
    if (slot instanceof HTMLElement) {
      slot.textContent = `${name} ${message ?? 'is invalid'}`;
      slot.hidden = false;
      found++;
    }
  }
  return found;
}

/** @param {HTMLElement} form */
export function clearErrors(form) {
  for (const n of form.querySelectorAll('[aria-invalid]')) n.removeAttribute('aria-invalid');
  for (const n of form.querySelectorAll('.form-problems')) if (n instanceof HTMLElement) n.hidden = true;
  for (const n of form.querySelectorAll('[data-error-for]')) {
    if (n instanceof HTMLElement) {
      n.hidden = true;
      n.textContent = '';
    }
  }
}
