import { McpLiteError } from '../core/errors.js';
import { KeyedListeners } from '../core/keyed-listeners.js';
import type { ResponseWaiter, ServerResponse, SessionEvent, SessionMessage } from '../core/session-state.js';
import { unrefTimer } from '../core/timers.js';

/**
 * What every session store keeps in its own process, whichever store holds the state: the listeners of each
 * session's messages and the server requests waiting here for their response. The memory store feeds them
 * directly, the Redis store from its pub/sub channel.
 */

/** The listeners of each session's messages (`SessionStateStore.listen`), by session id. */
export class SessionListeners extends KeyedListeners<SessionMessage> {}

/** The server requests waiting in this process for their response (`SessionStateStore.awaitResponse`). */
export class ResponseWaiters {
  private readonly waiters = new Map<string, (response: ServerResponse) => void>();

  /**
   * Waits for `requestId`'s response at most `timeoutMs` (then rejects `deadline_exceeded`); `onCancel` runs when
   * the waiter's `cancel` stops a wait that was still on.
   */
  wait(requestId: string, timeoutMs: number, onCancel?: () => void): ResponseWaiter {
    let cancel!: () => void;
    const response = new Promise<ServerResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(requestId);
        reject(new McpLiteError('deadline_exceeded', 'The client did not answer the server request in time'));
      }, timeoutMs);
      unrefTimer(timer);
      cancel = () => {
        clearTimeout(timer);
        if (this.waiters.delete(requestId)) onCancel?.();
      };
      this.waiters.set(requestId, (r) => {
        clearTimeout(timer);
        this.waiters.delete(requestId);
        resolve(r);
      });
    });
    return { response, cancel };
  }

  /** Hands a response to its waiter here; false when no such request waits here. */
  deliver(requestId: string, response: ServerResponse): boolean {
    const waiter = this.waiters.get(requestId);
    waiter?.(response);
    return waiter !== undefined;
  }

  clear(): void {
    this.waiters.clear();
  }
}

/** The events of the same stream after `lastEventId`; undefined when that event is not among `events`. */
export function eventsAfterId(
  events: readonly SessionEvent[],
  lastEventId: string,
): { stream: string; events: SessionEvent[] } | undefined {
  const index = events.findIndex((e) => e.id === lastEventId);
  if (index < 0) return undefined;
  const stream = events[index]!.stream;
  return { stream, events: events.slice(index + 1).filter((e) => e.stream === stream) };
}
