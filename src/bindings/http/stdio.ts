import type { Readable, Writable } from 'node:stream';
import { McpLiteError } from '../../core/errors.js';
import type { ToolServer } from '../../core/server.js';
import { readLines } from '../common/lines.js';
import { type ChannelOptions, openChannel } from './channel.js';
import { createMcpLiteRpc, type McpLiteRpcOptions } from './rpc.js';
import { rpcErrorMessage } from './wire.js';

/** Options of MCP-lite over stdio. */
export interface McpLiteStdioOptions extends ChannelOptions, Pick<McpLiteRpcOptions, 'maxBatchSize'> {
  /** Where messages come from. Default `process.stdin`. */
  input?: Readable;
  /** Where answers go. Default `process.stdout` (so logs must go to stderr). */
  output?: Writable;
  /** Longest accepted line in bytes, checked while reading. Default 4 MiB. */
  maxLineBytes?: number;
  /**
   * Most bytes of answers waiting for the client to read them: a client that stops reading stdout reaches it,
   * and the server stops (rather than buffering without bound). Default 64 MiB.
   */
  maxBufferedBytes?: number;
}

/** A running MCP-lite stdio server. */
export interface McpLiteStdioServer {
  /** Resolves when the input has ended and every answer has been written, or after `close()`. */
  readonly closed: Promise<void>;
  /** Stops reading and aborts what runs. */
  close(): void;
}

/**
 * MCP-lite over stdio (spec 8.2: "for CLI tools and local integrations"): one JSON-RPC message (or batch) per
 * line in each direction, with the same methods and channel semantics as over WebSocket (docs/wire-format.md):
 * calls run concurrently, `"stream": true` sends partials as `notifications/partial`, `notifications/cancelled`
 * aborts a call. The client closing stdin ends the session once the running calls have answered. This is what
 * `mcplite serve --stdio --mcp-lite` runs.
 */
export function serveMcpLiteStdio(server: ToolServer, options: McpLiteStdioOptions = {}): McpLiteStdioServer {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const maxLine = options.maxLineBytes ?? 4 * 1024 * 1024;
  const maxBuffered = options.maxBufferedBytes ?? 64 * 1024 * 1024;
  const rpc = createMcpLiteRpc(server, { maxBatchSize: options.maxBatchSize, binding: 'mcp-lite-stdio' });
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let done = false;

  const write = (text: string, whenWritten?: () => void): void => {
    if (done || output.destroyed) {
      whenWritten?.();
      return;
    }
    output.write(`${text}\n`, () => whenWritten?.());
    if (output.writableLength > maxBuffered) {
      server.logger.warn({ buffered: output.writableLength }, 'stdout is not being read: stopping');
      close(false);
    }
  };
  const channel = openChannel(
    rpc,
    {
      principal: undefined,
      remoteAddress: undefined,
      send: (text) => write(text),
      sendAndWait: (text) => new Promise<void>((resolve) => write(text, resolve)),
    },
    options,
  );
  // An output that fails (the client went away) ends the session like a closed input.
  output.on('error', () => close());

  const stopReading = readLines(input, maxLine, {
    line(bytes) {
      if (bytes.length > 0 && !isBlank(bytes)) channel.receive(bytes);
    },
    oversized(limit) {
      write(
        rpcErrorMessage(
          null,
          new McpLiteError('payload_too_large', `Payload Too Large: a line exceeds ${limit} bytes`, {
            limit,
          }),
        ),
      );
    },
    end() {
      void whenIdle().then(() => close());
    },
  });

  /** Resolves once no call runs any more. */
  async function whenIdle(): Promise<void> {
    while (!done && channel.inFlight > 0) await new Promise((r) => setTimeout(r, 10));
  }

  /** Ends the session; `flush`: once what was written has reached the client (not for one that stopped reading). */
  function close(flush = true): void {
    if (done) return;
    done = true;
    stopReading();
    channel.close();
    if (!flush || output.writableLength === 0 || output.destroyed) resolveClosed();
    else output.once('drain', resolveClosed).once('close', resolveClosed).once('error', resolveClosed);
  }

  return { closed, close: () => close() };
}

function isBlank(bytes: Buffer): boolean {
  for (const b of bytes) if (b !== 32 && b !== 9 && b !== 13) return false;
  return true;
}
