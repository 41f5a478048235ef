import { canonicalJson } from '../call-digest.js';
import { callerKey } from '../caller.js';
import { McpLiteError } from '../errors.js';
import type { Middleware, Operation } from '../operation.js';
import type { Outcome } from '../outcomes.js';
import { toolOf } from '../tool-call-operation.js';

/** Options of `cacheResults`. */
export interface CacheResultsOptions {
  /** How long an answer is reused, in milliseconds. */
  ttlMs: number;
  /**
   * Who shares an answer: `caller` (default) keeps one cache per caller (the principal, else the address), so
   * that nobody sees an answer made for someone else; `global` shares answers between every caller, for tools
   * whose answer does not depend on who asks.
   */
  scope?: 'caller' | 'global';
  /** Most answers kept in all. Default 1 000. */
  maxEntries?: number;
  /** Most answers kept for one caller (`scope: 'caller'`). Default 100. */
  maxEntriesPerCaller?: number;
  /** Answers larger than this (as JSON) are not kept. Default 64 KiB. */
  maxEntryBytes?: number;
}

interface Entry {
  outcome: Outcome;
  expiresAt: number;
  owner: string;
}

/**
 * Answers a call to a tool marked `cacheable: true` from the answer of an earlier call with the same arguments
 * (canonical JSON, key order aside) within `ttlMs`. Only `answer` outcomes are kept (never a failure, promise or
 * elicitation). The cache is bounded in entries, per caller and in the size of each answer; a full caller's
 * oldest answer makes room, never another caller's, and when the whole cache is full the answer is not kept.
 */
export function cacheResults(options: CacheResultsOptions): Middleware {
  if (!(options.ttlMs > 0) || !Number.isFinite(options.ttlMs)) {
    throw new McpLiteError('invalid_request', 'cacheResults needs a positive ttlMs');
  }
  const cache = new ResultCache(options);
  return (op, next) => {
    if (op.method !== 'tools/call' || toolOf(op)?.definition.cacheable !== true) return next();
    const owner = cache.ownerOf(op);
    const key = cache.keyOf(owner, op);
    const hit = cache.get(key);
    if (hit) return hit;
    const running = next();
    const keep = (value: unknown) => {
      cache.set(key, value as Outcome, owner);
      return value;
    };
    return running instanceof Promise ? running.then(keep) : keep(running);
  };
}

/** The bounded answer cache behind one `cacheResults` stage. */
class ResultCache {
  // Insertion order is age order: entries are never refreshed in place, only replaced.
  private readonly entries = new Map<string, Entry>();
  private readonly perOwner = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly global: boolean;
  private readonly maxEntries: number;
  private readonly maxPerCaller: number;
  private readonly maxBytes: number;

  constructor(options: CacheResultsOptions) {
    this.ttlMs = options.ttlMs;
    this.global = options.scope === 'global';
    this.maxEntries = options.maxEntries ?? 1000;
    this.maxPerCaller = options.maxEntriesPerCaller ?? 100;
    this.maxBytes = options.maxEntryBytes ?? 64 * 1024;
  }

  keyOf(owner: string, op: Operation): string {
    return `${owner}\u0000${op.name}\u0000${canonicalJson(op.arguments ?? {})}`;
  }

  get(key: string): Outcome | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > Date.now()) return entry.outcome;
    this.remove(key, entry);
    return undefined;
  }

  set(key: string, outcome: Outcome, owner: string): void {
    if (outcome.type !== 'answer') return;
    let size: number;
    try {
      size = JSON.stringify(outcome.result)?.length ?? 0;
    } catch {
      return;
    }
    if (size > this.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous) this.remove(key, previous);
    this.dropExpired();
    if (!this.global && (this.perOwner.get(owner) ?? 0) >= this.maxPerCaller) this.dropOldestOf(owner);
    if (this.entries.size >= this.maxEntries) {
      // A shared cache makes room from its oldest; a per-caller one never drops another caller's answers.
      if (!this.global) return;
      this.dropOldestOf(undefined);
    }
    this.entries.set(key, { outcome, expiresAt: Date.now() + this.ttlMs, owner });
    this.perOwner.set(owner, (this.perOwner.get(owner) ?? 0) + 1);
  }

  /** Whose answers these are: one cache per caller (`callerKey`), or `global`. */
  ownerOf(op: Operation): string {
    if (this.global) return 'global';
    return callerKey({ principal: op.caller.principal, remoteAddress: op.caller.address });
  }

  private dropExpired(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) {
      // Every entry lives ttlMs, so the first one still alive ends the expired prefix.
      if (entry.expiresAt > now) break;
      this.remove(key, entry);
    }
  }

  private dropOldestOf(owner: string | undefined): void {
    for (const [key, entry] of this.entries) {
      if (owner === undefined || entry.owner === owner) {
        this.remove(key, entry);
        return;
      }
    }
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    const left = (this.perOwner.get(entry.owner) ?? 1) - 1;
    if (left > 0) this.perOwner.set(entry.owner, left);
    else this.perOwner.delete(entry.owner);
  }
}
