import { McpLiteError } from './errors.js';
import type { LazyAbort } from './lazy-abort.js';
import type { Outcome } from './outcomes.js';
import { toSettlement } from './promises/manager.js';
import type { Settlement } from './promises/store.js';
import { trackRunningWork } from './running-work.js';
import { unrefTimer } from './timers.js';

/**
 * Wraps promised work (a long-running tool, or a call promoted past the answer budget): aborted through
 * `controller` after `maxRunMs`, it ends as a settlement for the promise store and never rejects. `toError` turns
 * what the work threw into the error kept (and logs an internal one).
 */
export function backgroundWork(
  run: () => Promise<Outcome>,
  controller: LazyAbort,
  maxRunMs: number,
  toError: (err: unknown) => McpLiteError,
  startedAt = performance.now(),
): Promise<Settlement> {
  const limit = setTimeout(
    () => controller.abort(new McpLiteError('deadline_exceeded', 'The promised work ran out of time')),
    maxRunMs,
  );
  unrefTimer(limit);
  const aborted = new Promise<never>((_, reject) => {
    controller.onAbort(reject);
  });
  aborted.catch(() => {});
  let work: Promise<Outcome>;
  try {
    work = run();
  } catch (err) {
    work = Promise.reject(err);
  }
  const settled = Promise.race([work, aborted])
    .then(
      (outcome) => toSettlement({ outcome }, performance.now() - startedAt),
      (err) => toSettlement({ error: toError(err) }, performance.now() - startedAt),
    )
    .finally(() => clearTimeout(limit));
  trackRunningWork(settled);
  return settled;
}
