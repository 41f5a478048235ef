// @ts-check
/**
 * The page's side of the local API; rounds arrive as SSE. The page holds no secret: its HttpOnly cookie (what the
 * URL's token was exchanged for) goes with each request, and the custom header below, which only a same-origin
 * script can send without a CORS preflight, says the request comes from the page itself.
 */
let bearer = sessionStorage.getItem('mcplite-bearer') ?? '';

/** Sets the bearer token sent on to a server that requires one (kept for this tab only). @param {string} value */
export function setBearer(value) {
  bearer = value;
  sessionStorage.setItem('mcplite-bearer', value);
}

/** @returns {Record<string, string>} */
function headers() {
  /** @type {Record<string, string>} */
  const h = { 'x-mcplite-inspector': 'page' };
  if (bearer) h.authorization = `Bearer ${bearer}`;
  return h;
}

/** GETs a JSON route of the API. @param {string} route @returns {Promise<{status: number, body: any}>} */
export async function getJson(route) {
  const response = await fetch(`api/${route}`, { headers: headers() });
  return { status: response.status, body: await response.json() };
}

/** POSTs to a JSON route of the API. @param {string} route @param {unknown} body @returns {Promise<{status: number, body: any}>} */
export async function postJson(route, body) {
  const response = await fetch(`api/${route}`, {
    method: 'POST',
    headers: { ...headers(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/**
 * POSTs to a round route and hands each SSE event to `onEvent` as it arrives. A refusal (not SSE) becomes one
 * `result` event carrying a protocol error, so the page shows it like any other.
 * @param {string} route @param {unknown} body @param {(event: string, data: any) => void} onEvent
 * @param {AbortSignal} [signal]
 */
export async function postRound(route, body, onEvent, signal) {
  const response = await fetch(`api/${route}`, {
    method: 'POST',
    headers: { ...headers(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) {
    const refusal = await response.json().catch(() => ({}));
    const error = refusal.error ?? { code: response.status, message: `HTTP ${response.status}` };
    onEvent('result', { outcome: { type: 'error', error }, exchange: { request: body, response: refusal } });
    return;
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trimStart();
      }
      onEvent(event, data ? JSON.parse(data) : null);
    }
  }
}
