import type { LazyAbort } from '../lazy-abort.js';
import type { Logger } from '../logger.js';
import { trackRunningWork } from '../running-work.js';
import { unrefTimer } from '../timers.js';
import type { PromisedJob } from '../work-queue.js';
import type { PromiseRecord, PromiseStore, Settlement } from './store.js';

/** The failure a promise settles in when the replica running its work died (its lease ran out). */
export const WORKER_LOST: Settlement = {
  outcome: {
    type: 'failure',
    code: 'worker_lost',
    message: 'The server running this work stopped before it finished; call the tool again',
  },
  processingTimeMs: 0,
};

/** What `LeasedWork` needs. */
export interface LeasedWorkOptions {
  store: PromiseStore;
  /** How long a lease lasts; renewed every third of it while the work runs. */
  leaseMs: number;
  logger: Logger;
  /**
   * Queues again the job of a replica that died mid-run (see `PromiseStore.takeOver`), so that another worker runs
   * it; `handingBack` when this replica gives back its own running work at shutdown. Without it, such a promise
   * settles as `worker_lost`.
   */
  requeue?: (job: PromisedJob, handingBack: boolean) => Promise<void>;
}

/** How many lapsed leases one sweep takes over at most (the next sweep takes the rest). */
const SWEEP_BATCH = 100;

/**
 * The promised work this replica runs in its own memory, each under a lease in the store: a call promoted past the
 * answer budget, or a job a shared queue let run here at once. While the work runs, its lease is renewed; a cancel
 * (from any replica) aborts it. When a replica dies, its leases run out, and whoever notices first (a redeem, or
 * the sweep every replica makes of a shared store) takes the work over, once: its job is queued again when one was
 * kept, else the promise settles as `worker_lost`, never pending forever.
 */
export class LeasedWork {
  private readonly running = new Map<string, LazyAbort>();
  /** The running work whose job the store keeps: at shutdown it is handed back rather than failed. */
  private readonly withJob = new Set<string>();
  /** Work handed back at shutdown: its end is not a settlement (another worker runs it again). */
  private readonly handedBack = new Set<string>();
  private leaseTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: LeasedWorkOptions) {
    // A shared store can say whose lease ran out: every replica looks now and then, so the work of a replica that
    // died is taken over even when nobody redeems it. Taking over is atomic: one replica wins.
    if (options.store.lapsedLeases) {
      this.sweepTimer = setInterval(() => void this.sweep(), Math.max(10, Math.floor(options.leaseMs / 2)));
      unrefTimer(this.sweepTimer);
    }
  }

  /** How many pieces of leased work run here now. */
  get size(): number {
    return this.running.size;
  }

  /** Aborts the work of `token` if it runs here (a cancel). */
  abort(token: string, reason: unknown): void {
    this.running.get(token)?.abort(reason);
  }

  /**
   * Runs `work` for the leased promise `token` and settles the promise with its end, renewing the lease meanwhile.
   * `hasJob`: the store keeps the job (it is handed back at shutdown).
   */
  run(token: string, controller: LazyAbort, work: () => Promise<Settlement>, hasJob: boolean): void {
    const { store, logger } = this.options;
    this.running.set(token, controller);
    if (hasJob) this.withJob.add(token);
    this.startLeases();
    const settling = work()
      .then((settlement) => (this.handedBack.has(token) ? false : store.settle(token, settlement)))
      .catch((err) => logger.error({ err, token }, 'promise settlement failed'))
      .finally(() => {
        this.running.delete(token);
        this.withJob.delete(token);
        this.handedBack.delete(token);
      });
    // Until the promise is settled in the store, not only until the work ends (Workers' waitUntil).
    trackRunningWork(settling);
  }

  /** A pending record whose lease ran out (and whose work does not run here) is taken over; the record after. */
  async check(record: PromiseRecord): Promise<PromiseRecord> {
    if (record.status !== 'pending' || record.leaseUntil === undefined || record.leaseUntil > Date.now()) {
      return record;
    }
    if (this.running.has(record.token)) return record;
    await this.recover(record.token);
    return (await this.options.store.get(record.token)) ?? record;
  }

  /**
   * Shutdown: the work whose job the store keeps is handed back (aborted here and queued again at once for another
   * worker); the rest is aborted and settles with `reason`.
   */
  async abortAll(reason: unknown): Promise<void> {
    const back = this.options.requeue && this.options.store.takeOver ? [...this.withJob] : [];
    for (const token of back) this.handedBack.add(token);
    for (const c of this.running.values()) c.abort(reason);
    await Promise.all(back.map((token) => this.recover(token, true)));
  }

  /** Stops renewing and sweeping. */
  close(): void {
    clearInterval(this.leaseTimer);
    clearInterval(this.sweepTimer);
    this.leaseTimer = undefined;
    this.sweepTimer = undefined;
  }

  /**
   * Takes over the work of a lapsed lease (or, with `force`, work this replica hands back): queued again when its
   * job was kept and a queue can take it, else settled as `worker_lost`. A store without `takeOver` keeps no jobs.
   */
  private async recover(token: string, force = false): Promise<void> {
    const { store, requeue, logger } = this.options;
    try {
      const taken = store.takeOver ? await store.takeOver(token, Date.now(), force) : {};
      if (!taken) return;
      if (taken.job && requeue) {
        try {
          // A job that does not parse (written by something else) cannot run again: it is lost like the rest.
          await requeue(JSON.parse(taken.job) as PromisedJob, force);
          logger.warn({ token }, force ? 'running work handed back to the queue' : 'lost work queued again');
          return;
        } catch (err) {
          logger.warn({ err, token }, 'could not queue lost work again: settling it as worker_lost');
        }
      }
      await store.settle(token, WORKER_LOST);
    } catch (err) {
      logger.warn({ err, token }, 'could not take over lost work');
    }
  }

  /** One look for lapsed leases (see the constructor); a failure waits for the next look. */
  private async sweep(): Promise<void> {
    try {
      const lapsed = await this.options.store.lapsedLeases!(Date.now(), SWEEP_BATCH);
      for (const token of lapsed) if (!this.running.has(token)) await this.recover(token);
    } catch (err) {
      this.options.logger.debug({ err }, 'lease sweep failed');
    }
  }

  /** Renews the leases of the work this replica runs, while it runs any. */
  private startLeases(): void {
    if (this.leaseTimer) return;
    this.leaseTimer = setInterval(
      () => {
        if (this.running.size === 0) {
          clearInterval(this.leaseTimer);
          this.leaseTimer = undefined;
          return;
        }
        this.options.store
          .renewLeases([...this.running.keys()], Date.now() + this.options.leaseMs)
          .catch((err) => this.options.logger.warn({ err }, 'could not renew promise leases'));
      },
      Math.max(10, Math.floor(this.options.leaseMs / 3)),
    );
    unrefTimer(this.leaseTimer);
  }
}
