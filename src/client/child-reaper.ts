import type { ChildProcess } from 'node:child_process';

/** The children still running that this process spawned, to be ended when it exits. */
const living = new Set<ChildProcess>();

/**
 * Ends `child` when this process exits, however it exits (`process.exit` after an error or a timeout, the CLI's
 * exit on SIGINT/SIGTERM, the event loop running dry): a stdio server that ignores the end of its stdin would
 * otherwise outlive the client as an orphan. `exit` listeners run synchronously, so a kill is all there is time
 * for, and SIGKILL, as nothing would be left to escalate; a graceful end is the client's `close`, before this.
 */
export function endWithProcess(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (living.size === 0) process.on('exit', reap);
  living.add(child);
  child.once('exit', () => {
    living.delete(child);
    if (living.size === 0) process.off('exit', reap);
  });
}

function reap(): void {
  for (const child of living) {
    try {
      child.kill('SIGKILL');
    } catch {
      // Gone already.
    }
  }
}
