import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../../core/logger.js';
import type { ConnectionPeer, JsonRpcConnection } from './json-rpc-connection.js';
import { readLines } from './line-reader.js';
import { type OutboundSink, OutboundWriter, type StreamBoundOptions } from './outbound-stream.js';

/**
 * The one stdio framing of JSON-RPC, for MCP and MCP-lite alike: one message (or batch) per line in each direction,
 * the process's stdin and stdout one connection (`json-rpc-connection.ts`). A line is bounded while it is read: one
 * over the limit is answered `payload_too_large` with no id as soon as it passes the limit, skipped to its end, and
 * reading carries on. Answers are written in order through the one outbound writer (`outbound-stream.ts`), waiting
 * for 'drain' when the pipe is full; a client that stops reading stdout is cut off once `maxQueuedBytes` wait for
 * it, rather than buffered for without bound.
 */

/** Options of a stdio server, whichever protocol it speaks. */
export interface StdioFramingOptions extends StreamBoundOptions {
  /** Where messages come from. Default `process.stdin`. */
  input?: Readable;
  /** Where answers go. Default `process.stdout` (so logs must go to stderr). */
  output?: Writable;
  /** Longest accepted line in bytes, checked while reading. Default 4 MiB. */
  maxLineBytes?: number;
  /**
   * @deprecated The bound is `maxQueuedBytes`, the one every stream and connection has (here: default 64 MiB of
   * answers unread on stdout); this name is still honoured when that one is not given.
   */
  maxBufferedBytes?: number;
}

/** A running stdio server. */
export interface StdioSession {
  /**
   * Resolves once the session has ended (the input ended and the running requests answered, the draft's `exit`,
   * `close()`, or a client that stopped reading) and what was written has gone out.
   */
  readonly closed: Promise<void>;
  /** Stops reading and aborts what runs. */
  close(): void;
}

/** The default bound on answers unread on stdout: the pipe carries all of the one client's traffic. */
const STDIO_MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/**
 * Serves one connection over stdio lines: `open` makes the protocol's connection over the line peer. The client
 * closing stdin ends the session once the requests running then have answered.
 */
export function serveLines(
  logger: Logger,
  options: StdioFramingOptions,
  open: (peer: ConnectionPeer) => JsonRpcConnection,
): StdioSession {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const maxLine = options.maxLineBytes ?? 4 * 1024 * 1024;
  const maxQueuedBytes = options.maxQueuedBytes ?? options.maxBufferedBytes ?? STDIO_MAX_QUEUED_BYTES;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing = false;
  // One wait for 'drain' shared by every write that finds the pipe full (one listener, however many wait).
  let drained: Promise<void> | undefined;

  /** Resolves once `output` has room again (or is gone), leaving no listener behind. */
  const drain = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const go = () => {
        output.off('drain', go);
        output.off('close', go);
        drained = undefined;
        resolve();
      };
      output.on('drain', go);
      output.on('close', go);
    });

  // The pipe keeps the lines in order and counts what waits in it; the writer bounds that and cuts off past it.
  const sink: OutboundSink = {
    get waitingBytes() {
      return output.writableLength;
    },
    send(line) {
      if (output.destroyed) return undefined;
      if (output.write(`${line}\n`)) return undefined;
      drained ??= drain();
      return drained;
    },
    drop: () => output.destroy(),
  };
  const out = new OutboundWriter(sink, {
    maxQueuedBytes,
    onCutOff() {
      logger.warn({ buffered: output.writableLength }, 'stdout is not being read: stopping');
      close(false);
    },
  });

  const connection = open({
    write: (line) => out.write(line),
    end: () => close(),
    principal: undefined,
    remoteAddress: undefined,
  });
  // An output that fails (the client went away) ends the session like a closed input.
  const onOutputError = () => close(false);
  output.on('error', onOutputError);
  const stopReading = readLines(input, maxLine, {
    line(bytes) {
      if (!isBlank(bytes)) connection.receiveBytes(bytes);
    },
    oversized: (limit) => connection.oversized(limit),
    // The client closing stdin ends the session; what is already running may still answer.
    end: () => void connection.idle().then(() => close()),
  });

  /** Ends the session; `flush`: once what was written has reached the client (not for one that stopped reading). */
  function close(flush = true): void {
    if (closing) return;
    closing = true;
    stopReading();
    connection.close();
    out.end();
    if (!flush || output.destroyed || output.writableLength === 0) {
      resolveClosed();
      return;
    }
    // An empty write's callback comes once every earlier write has gone out (or failed): 'drain' would only come
    // if a write had found the buffer full.
    output.write('', () => resolveClosed());
  }

  return { closed, close: () => close() };
}

/** Whether a line is empty or only white space (skipped, never answered). */
function isBlank(bytes: Buffer): boolean {
  for (const b of bytes) if (b !== 32 && b !== 9 && b !== 13) return false;
  return true;
}
