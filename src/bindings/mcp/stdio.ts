import type { Readable, Writable } from 'node:stream';
import { McpLiteError } from '../../core/errors.js';
import type { ToolServer } from '../../core/server.js';
import { parseJsonBody } from '../common/json-body.js';
import { readLines } from '../common/lines.js';
import { openMcpConnection } from './connection.js';
import { type EngineOptions, McpEngine } from './engine.js';
import { taskRegistryFor } from './tasks.js';

/** Options of the stdio transport. */
export interface StdioOptions extends EngineOptions {
  /** Where messages come from. Default `process.stdin`. */
  input?: Readable;
  /** Where messages go. Default `process.stdout` (so logs must go to stderr). */
  output?: Writable;
  /** Longest accepted line in bytes, checked while reading. Default 4 MiB. */
  maxLineBytes?: number;
  /** How long to wait for the client's answer to a server request. Default 5 minutes. */
  serverRequestTimeoutMs?: number;
}

/** A running stdio server. */
export interface StdioServer {
  /** Resolves when the input ends (the client closed stdin) or `exit` arrived. */
  readonly closed: Promise<void>;
  /** Stops reading and aborts what runs. */
  close(): void;
}

/**
 * MCP over stdio: one JSON-RPC message per line in each direction, the connection one session
 * (`connection.ts`: the handshake, concurrent requests, notifications and server requests interleaved, the
 * stateless revision, the draft-seed dialect). This file is the line framing only. This is what
 * `mcplite serve --stdio <module>` runs.
 */
export function serveStdio(server: ToolServer, options: StdioOptions = {}): StdioServer {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const maxLine = options.maxLineBytes ?? 4 * 1024 * 1024;
  const engine = options.engine ?? new McpEngine(server, options, taskRegistryFor(server, options));
  let writing: Promise<void> = Promise.resolve();
  let closing = false;
  let ended = false;

  /** Writes one line, in order, waiting for 'drain' when the pipe is full. */
  const write = (line: string): Promise<void> => {
    writing = writing.then(
      () =>
        new Promise<void>((resolve) => {
          if (ended || output.destroyed) return resolve();
          if (output.write(`${line}\n`)) return resolve();
          const go = () => {
            output.off('drain', go);
            output.off('close', go);
            resolve();
          };
          output.on('drain', go);
          output.on('close', go);
        }),
    );
    return writing;
  };

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const connection = openMcpConnection(
    server,
    engine,
    { write, end: () => close(), principal: undefined, remoteAddress: undefined },
    { binding: 'mcp-stdio', serverRequestTimeoutMs: options.serverRequestTimeoutMs },
  );
  const stopReading = readLines(input, maxLine, {
    line(bytes) {
      if (bytes.every((b) => b === 32 || b === 9 || b === 13)) return;
      let body: unknown;
      try {
        body = parseJsonBody(bytes);
      } catch (err) {
        void write(connection.errorFor(err));
        return;
      }
      connection.receive(body);
    },
    oversized(limit) {
      const e = new McpLiteError('invalid_request', `Invalid Request: a message exceeds ${limit} bytes`);
      void write(connection.errorFor(e));
    },
    // The client closing stdin ends the session; what is already running may still answer.
    end: () => void connection.idle().then(close),
  });

  function close(): void {
    if (closing) return;
    closing = true;
    stopReading();
    connection.close();
    // What was already written still has to reach the client.
    void writing.then(() => {
      ended = true;
      resolveClosed();
    });
  }

  return { closed, close };
}
