/**
 * The view of browse_documents (MCP Apps): one self-contained HTML document, no external fetch, that speaks the
 * view protocol to its host over postMessage JSON-RPC: `ui/initialize`, then `ui/notifications/initialized`;
 * it renders the `ui/notifications/tool-result` hits as a list whose "Open" button calls the app-only tool
 * open_document through the host (`tools/call`), and reports its size (`ui/notifications/size-changed`).
 * Behind a gateway that renames tools with a prefix (`docs_browse_documents`), it calls open_document by the same
 * prefix, read from the name the host says it was rendered for (`hostContext.toolInfo.tool.name`).
 */
export const BROWSE_VIEW_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Documents</title>
<style>
  :root { color-scheme: light dark; --fg: var(--color-text-primary, #1b1b1b); --muted: var(--color-text-secondary, #666);
    --line: var(--color-border-primary, #ddd); --accent: #2f6fde; font-family: var(--font-sans, system-ui, sans-serif); }
  body { margin: 0; padding: 12px; color: var(--fg); font-size: 14px; }
  h1 { font-size: 15px; margin: 0 0 8px; }
  ol { list-style: none; margin: 0; padding: 0; }
  li { border-top: 1px solid var(--line); padding: 8px 0; display: flex; gap: 8px; align-items: flex-start; }
  li div { flex: 1; }
  .title { font-weight: 600; }
  .excerpt, .meta { color: var(--muted); font-size: 13px; }
  button { border: 1px solid var(--accent); color: var(--accent); background: none; border-radius: 4px; padding: 2px 10px; cursor: pointer; }
  article { border: 1px solid var(--line); border-radius: 6px; padding: 10px; margin-top: 10px; white-space: pre-wrap; }
  .error { color: #c0392b; }
</style>
</head>
<body>
<h1 id="heading">Waiting for the search…</h1>
<ol id="hits"></ol>
<article id="document" hidden></article>
<script>
(() => {
  // The name open_document goes by where this view is shown: its own tool's, renamed alike by a gateway's prefix.
  let openTool = 'open_document';
  let nextId = 1;
  const pending = new Map();
  const host = window.parent;
  const send = (message) => host.postMessage(Object.assign({ jsonrpc: '2.0' }, message), '*');
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    send({ id, method, params });
  });
  const notify = (method, params) => send({ method, params });
  const $ = (id) => document.getElementById(id);

  function text(tag, className, value) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    node.textContent = value;
    return node;
  }

  function showHits(result) {
    const data = result && result.structuredContent;
    const hits = data && Array.isArray(data.hits) ? data.hits : [];
    $('heading').textContent = hits.length + ' document' + (hits.length === 1 ? '' : 's') +
      (data && data.query ? ' for "' + data.query + '"' : '');
    const list = $('hits');
    list.replaceChildren();
    for (const hit of hits) {
      const item = document.createElement('li');
      const body = document.createElement('div');
      body.append(text('div', 'title', hit.title), text('div', 'excerpt', hit.excerpt));
      const open = text('button', '', 'Open');
      open.dataset.documentId = hit.document_id;
      open.addEventListener('click', () => openDocument(hit.document_id));
      item.append(body, open);
      list.append(item);
    }
  }

  async function openDocument(id) {
    const panel = $('document');
    panel.hidden = false;
    panel.className = '';
    panel.textContent = 'Opening ' + id + '…';
    try {
      const result = await request('tools/call', { name: openTool, arguments: { document_id: id } });
      const doc = result.structuredContent;
      if (result.isError || !doc) throw new Error((result.content && result.content[0] && result.content[0].text) || 'not found');
      panel.dataset.documentId = doc.document_id;
      panel.replaceChildren(text('div', 'title', doc.title),
        text('div', 'meta', doc.category + ' · ' + doc.author + ' · ' + doc.published), text('p', '', doc.body));
    } catch (err) {
      panel.className = 'error';
      panel.textContent = 'Could not open ' + id + ': ' + (err && err.message ? err.message : String(err));
    }
  }

  window.addEventListener('message', (event) => {
    if (event.source !== host) return;
    const m = event.data;
    if (!m || m.jsonrpc !== '2.0') return;
    if (m.id !== undefined && m.method === undefined) {
      const waiter = pending.get(m.id);
      if (!waiter) return;
      pending.delete(m.id);
      if (m.error) waiter.reject(new Error(m.error.message || 'error'));
      else waiter.resolve(m.result);
      return;
    }
    switch (m.method) {
      case 'ui/notifications/tool-input':
        $('heading').textContent = 'Searching for "' + ((m.params && m.params.arguments && m.params.arguments.query) || '') + '"…';
        break;
      case 'ui/notifications/tool-result':
        showHits(m.params);
        break;
      case 'ui/notifications/tool-cancelled':
        $('heading').textContent = 'The search was cancelled';
        break;
      case 'ui/resource-teardown':
      case 'ping':
        if (m.id !== undefined) send({ id: m.id, result: {} });
        break;
      default:
        if (m.id !== undefined) send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
    }
  });

  // Sizes are reported once the handshake is done, as the host reads nothing of the view before it.
  let lastSize = '';
  const reportSize = () => {
    const width = Math.ceil(document.documentElement.scrollWidth);
    const height = Math.ceil(document.documentElement.scrollHeight);
    const size = width + 'x' + height;
    if (size === lastSize) return;
    lastSize = size;
    notify('ui/notifications/size-changed', { width, height });
  };

  request('ui/initialize', {
    protocolVersion: '2026-01-26',
    appInfo: { name: 'mcplite-demo-documents', version: '1.0.0' },
    appCapabilities: {},
  }).then((init) => {
    const shown = init && init.hostContext && init.hostContext.toolInfo && init.hostContext.toolInfo.tool;
    const own = 'browse_documents';
    if (shown && typeof shown.name === 'string' && shown.name.length > own.length && shown.name.endsWith(own))
      openTool = shown.name.slice(0, -own.length) + 'open_document';
    notify('ui/notifications/initialized', {});
    new ResizeObserver(reportSize).observe(document.documentElement);
  }, (err) => { $('heading').textContent = 'The host refused the view: ' + err.message; });
})();
</script>
</body>
</html>
`;
