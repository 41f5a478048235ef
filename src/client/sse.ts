import { boundExceeded, type ClientLimits } from './limits.js';

/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * The events of an SSE body (text/event-stream), as they arrive. Small on purpose: the client needs `event`,
 * `data` and `id`, and a body that ends mid-event ends the iteration. Bounded: one event (its lines so far, and
 * a line not yet ended) past `maxResponseBytes`, or the body past `maxStreamBytes`, is `payload_too_large`,
 * and the body is cancelled; a data line that never ends would otherwise grow without end.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  limits: Pick<ClientLimits, 'maxResponseBytes' | 'maxStreamBytes'>,
): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let dataLength = 0;
  let id: string | undefined;
  let total = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > limits.maxStreamBytes) throw boundExceeded('maxStreamBytes', limits.maxStreamBytes);
    // Only the new text is searched for a line end, so a line that never ends costs linear time.
    const from = buffer.length;
    buffer += decoder.decode(chunk, { stream: true });
    let nl = lineEnd(buffer, Math.max(0, from - 1));
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
      if (line === '') {
        if (data.length > 0)
          yield { event: event || 'message', data: data.join('\n'), ...(id ? { id } : {}) };
        event = '';
        data = [];
        dataLength = 0;
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') event = value;
        else if (field === 'data') {
          data.push(value);
          dataLength += value.length + 1;
        } else if (field === 'id') id = value;
      }
      nl = lineEnd(buffer, 0);
    }
    // Characters, not bytes: never more than the bytes they came from, so the bound holds.
    if (dataLength + buffer.length > limits.maxResponseBytes)
      throw boundExceeded('maxResponseBytes', limits.maxResponseBytes);
  }
}

/** Where the first line ends (a CR or an LF) at or after `from`, or -1. */
function lineEnd(text: string, from: number): number {
  const lf = text.indexOf('\n', from);
  const cr = text.indexOf('\r', from);
  return cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
}
