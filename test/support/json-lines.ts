/**
 * The reading side of a newline-delimited JSON transport (MCP and MCP-lite over stdio) as the tests see it.
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** The messages read so far, and `next`, which takes out the first that matches `match`, waiting for it. */
export interface JsonLines {
  messages: any[];
  next(match: (m: any) => boolean): Promise<any>;
}

/** Parses every line `output` writes as one JSON message (a multi-byte character split across chunks included). */
export function jsonLines(output: Readable): JsonLines {
  const messages: any[] = [];
  const waiters: Array<() => void> = [];
  const decoder = new StringDecoder('utf8');
  let buffered = '';
  output.on('data', (chunk: Buffer | string) => {
    buffered += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      messages.push(JSON.parse(buffered.slice(0, i)));
      buffered = buffered.slice(i + 1);
      for (const w of waiters.splice(0)) w();
    }
  });
  return {
    messages,
    async next(match) {
      for (;;) {
        const i = messages.findIndex(match);
        if (i >= 0) return messages.splice(i, 1)[0];
        await new Promise<void>((r) => waiters.push(r));
      }
    },
  };
}
