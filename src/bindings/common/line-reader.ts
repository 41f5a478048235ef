import type { Readable } from 'node:stream';

/**
 * The one reader of JSON lines from a stream: a server's stdin (`stdio-framing.ts`) and a stdio client's view of its
 * child's stdout (`client/stdio-channel.ts`). A line is bounded while it is read, never held whole past the limit.
 */

/** What a line reader reports. */
export interface LineHandlers {
  /** One complete line, without its `\n` (nor a `\r` before it). */
  line(bytes: Buffer): void;
  /** A line passed the limit: it is skipped up to its end, and this is called once for it. */
  oversized(limit: number): void;
  /** The input ended (after the last line). */
  end(): void;
}

/**
 * Splits a stream into `\n`-terminated lines, checking the size limit while it reads: a line longer than
 * `maxLineBytes` is never held whole (what came of it is dropped, the rest skipped up to its end), unlike
 * readline, which buffers a line of any length before anyone can look at it. A last line without `\n` counts.
 * Returns a function that stops reading.
 */
export function readLines(input: Readable, maxLineBytes: number, handlers: LineHandlers): () => void {
  let parts: Buffer[] = [];
  let size = 0;
  let skipping = false;
  let ended = false;

  const emit = (tail: Buffer) => {
    if (skipping) {
      skipping = false;
      return;
    }
    let line = parts.length === 0 ? tail : Buffer.concat([...parts, tail], size + tail.length);
    parts = [];
    size = 0;
    if (line.length > 0 && line[line.length - 1] === 13 /* \r */) line = line.subarray(0, line.length - 1);
    if (line.length > maxLineBytes) handlers.oversized(maxLineBytes);
    else handlers.line(line);
  };
  const onData = (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      emit(chunk.subarray(start, nl));
      start = nl + 1;
    }
    if (start >= chunk.length || skipping) return;
    const rest = chunk.subarray(start);
    // One byte of slack for a `\r` that a `\n` in the next chunk may turn out to end the line with.
    if (size + rest.length > maxLineBytes + 1) {
      parts = [];
      size = 0;
      skipping = true;
      handlers.oversized(maxLineBytes);
      return;
    }
    parts.push(rest);
    size += rest.length;
  };
  const onEnd = () => {
    if (ended) return;
    ended = true;
    if (size > 0) emit(Buffer.alloc(0));
    handlers.end();
  };
  input.on('data', onData);
  input.once('end', onEnd);
  input.once('close', onEnd);
  // A broken input ends the lines like a closed one (and must not be an unhandled 'error').
  input.on('error', onEnd);
  return () => {
    input.off('data', onData);
    input.off('end', onEnd);
    input.off('close', onEnd);
    input.off('error', onEnd);
    input.pause();
  };
}
