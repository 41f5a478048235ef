import { toMcpError } from '../bindings/mcp/wire.js';
import { McpLiteError } from '../core/errors.js';
import { abortError, fromJsonRpcError, isRecord } from './wire-errors.js';

/** What the other end sends unasked: its requests (answered with what the handler returns) and notifications. */
export interface PeerHandlers {
  /**
   * A request of the server's: its result, or undefined for a method this client does not serve (answered
   * -32601). A handler that throws is answered with an internal error.
   */
  request(method: string, params: Record<string, unknown>): Promise<unknown> | undefined;
  notification(method: string, params: Record<string, unknown>): void;
}

/**
 * The client's end of a JSON-RPC connection over a message channel (a stdio child's lines): requests matched to
 * their responses by id, the server's own requests and notifications handed to `handlers`.
 */
export interface JsonRpcPeer {
  /**
   * Sends a request and resolves with its result; a JSON-RPC error rejects as the McpLiteError it maps to. The
   * signal aborting drops the wait and tells the server (`notifications/cancelled`).
   */
  request(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>;
  notify(method: string, params: Record<string, unknown>): void;
  /** One message from the channel: a response, a request, a notification, or a batch of them. */
  receive(message: unknown): void;
  /** The connection is gone: every request still waiting rejects with `reason`, as do later ones. */
  close(reason: McpLiteError): void;
}

interface Waiting {
  resolve(result: unknown): void;
  reject(err: unknown): void;
}

/** A JsonRpcPeer writing through `send`. */
export function jsonRpcPeer(send: (message: unknown) => Promise<void>, handlers: PeerHandlers): JsonRpcPeer {
  const waiting = new Map<number, Waiting>();
  let nextId = 1;
  let closed: McpLiteError | undefined;

  const respond = (id: unknown, body: { result: unknown } | { error: unknown }) =>
    void send({ jsonrpc: '2.0', id, ...body }).catch(() => {});

  function answer(id: unknown, method: string, params: Record<string, unknown>): void {
    let running: Promise<unknown> | undefined;
    try {
      running = handlers.request(method, params);
    } catch (err) {
      running = Promise.reject(err);
    }
    if (!running) {
      const unserved = new McpLiteError('method_not_found', `Method not found: ${method}`);
      respond(id, { error: toMcpError(unserved, false) });
      return;
    }
    running.then(
      (result) => respond(id, { result: result ?? {} }),
      (err: unknown) =>
        respond(id, {
          error: toMcpError(
            new McpLiteError('internal', err instanceof Error ? err.message : 'Internal error'),
            false,
          ),
        }),
    );
  }

  function receiveOne(message: unknown): void {
    if (!isRecord(message)) return;
    const { id, method } = message;
    const params = isRecord(message.params) ? message.params : {};
    if (typeof method === 'string') {
      if (id === undefined || id === null) handlers.notification(method, params);
      else answer(id, method, params);
      return;
    }
    const waiter = typeof id === 'number' ? waiting.get(id) : undefined;
    if (!waiter) return;
    waiting.delete(id as number);
    if ('error' in message) waiter.reject(fromJsonRpcError(message.error));
    else if ('result' in message) waiter.resolve(message.result);
    else waiter.reject(new McpLiteError('internal', 'Not a JSON-RPC response'));
  }

  return {
    request(method, params, signal) {
      if (closed) return Promise.reject(closed);
      if (signal?.aborted) return Promise.reject(abortError(signal));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          if (!waiting.delete(id)) return;
          void send({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id, reason: 'The client gave up' },
          }).catch(() => {});
          reject(abortError(signal));
        };
        waiting.set(
          id,
          signal
            ? {
                resolve(result) {
                  signal.removeEventListener('abort', onAbort);
                  resolve(result);
                },
                reject(err) {
                  signal.removeEventListener('abort', onAbort);
                  reject(err);
                },
              }
            : { resolve, reject },
        );
        signal?.addEventListener('abort', onAbort, { once: true });
        send({ jsonrpc: '2.0', id, method, params }).catch((err: unknown) => {
          if (waiting.delete(id)) reject(err);
        });
      });
    },
    notify(method, params) {
      if (!closed) void send({ jsonrpc: '2.0', method, params }).catch(() => {});
    },
    receive(message) {
      if (Array.isArray(message)) for (const one of message) receiveOne(one);
      else receiveOne(message);
    },
    close(reason) {
      if (closed) return;
      closed = reason;
      const all = [...waiting.values()];
      waiting.clear();
      for (const waiter of all) waiter.reject(reason);
    },
  };
}
