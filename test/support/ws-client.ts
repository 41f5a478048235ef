/**
 * A small JSON-RPC client over a real WebSocket (the `ws` package), for tests: it keeps every message received so
 * that a test can wait for the ones it expects in any order, and matches responses to requests by id.
 */
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';

/** A connected test client. */
export interface WsTestClient {
  ws: WebSocket;
  /** Sends a request and resolves with its response (the whole JSON-RPC message). */
  request(method: string, params?: unknown, id?: string | number): Promise<any>;
  /** Sends anything: an object is sent as JSON, a string or buffer as is. */
  send(message: unknown): void;
  /** Resolves with (and removes) the first message received that satisfies `match`, waiting for it if need be. */
  next(match: (m: any) => boolean): Promise<any>;
  /** Every message received and not yet taken by `next` or `request`. */
  received: any[];
  /** Resolves with the close code and reason once the connection has closed. */
  closed: Promise<{ code: number; reason: string }>;
}

let counter = 0;

/** Opens a connection; rejects with the HTTP status (and the response) if the upgrade is refused. */
export async function connectWs(
  url: string,
  options: { protocol?: string | string[] | null; headers?: Record<string, string>; autoPong?: boolean } = {},
): Promise<WsTestClient> {
  const protocol = options.protocol === undefined ? 'mcp-lite' : options.protocol;
  const ws = new WebSocket(url, protocol ?? [], {
    headers: options.headers,
    ...(options.autoPong === false ? { autoPong: false } : {}),
  });
  const received: any[] = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data, isBinary) => {
    const text = isBinary ? `<binary ${(data as Buffer).length}>` : data.toString();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { unparsed: text };
    }
    received.push(parsed);
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const w of waiters.splice(0)) w();
    });
  });
  ws.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => reject(new RefusedUpgrade(res.statusCode ?? 0, res.headers, body)));
    });
    ws.once('error', reject);
  });
  const next = async (match: (m: any) => boolean): Promise<any> => {
    for (;;) {
      const i = received.findIndex(match);
      if (i >= 0) return received.splice(i, 1)[0];
      if (ws.readyState === WebSocket.CLOSED) throw new Error('the connection closed');
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return {
    ws,
    received,
    closed,
    next,
    send(message) {
      ws.send(typeof message === 'string' || Buffer.isBuffer(message) ? message : JSON.stringify(message));
    },
    request(method, params, id = `r${++counter}`) {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) }));
      return next((m) => m.id === id && ('result' in m || 'error' in m));
    },
  };
}

/** An upgrade the server answered with an HTTP response instead of a WebSocket. */
export class RefusedUpgrade extends Error {
  constructor(
    readonly status: number,
    readonly headers: IncomingMessage['headers'],
    readonly body: string,
  ) {
    super(`upgrade refused with HTTP ${status}: ${body}`);
  }

  /** The body as JSON. */
  get json(): any {
    return JSON.parse(this.body);
  }
}

/** Resolves with the refusal of an upgrade that is expected to be refused. */
export async function refusal(
  url: string,
  options: Parameters<typeof connectWs>[1] = {},
): Promise<RefusedUpgrade> {
  try {
    const c = await connectWs(url, options);
    c.ws.close();
  } catch (err) {
    if (err instanceof RefusedUpgrade) return err;
    throw err;
  }
  throw new Error('the upgrade was accepted');
}

/** Polls `check` until it is true (or fails the test after `withinMs`). */
export async function eventually(check: () => boolean, withinMs = 5000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('the condition did not become true in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
