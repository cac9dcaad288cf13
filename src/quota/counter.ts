// The monthly quota of API-key requests (DECISIONS wave 3, "Monthly quota"), counted across
// instances without a database write per request.
//
// Each instance counts the requests it admits in memory and adds them to the shared total in
// batches (src/store/repositories/usage.ts: one upsert for every org with new requests, every
// `flushMs`); the same flush re-reads the totals of the orgs this instance served lately, so it
// sees what the other instances counted. A request is admitted while
//   last known total + this instance's counts not yet in it < the org's limit.
// PostgreSQL rather than Redis holds the count: it is what a bill is made of, and must survive a
// Redis flush; one upsert per instance per flush is no load.
//
// Error bound: the count is exact (every admitted request is added once; a crash loses at most the
// last `flushMs` of one instance's counts). Enforcement lags by at most one flush plus one upsert:
// in that time the other instances admit at most what the org's bucket lets through (burst +
// rate × lag: 100 + 50 × 0.25 s at the defaults, 0.11 % of 100,000), after which every instance
// refuses. An org's own quota (a staff setting) is read with the flushes, at most `settingTtlMs`
// old (at once on the instance that took the change); until an instance first read it, it
// applies the default. A flush that fails keeps its counts for the next one.
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import { usageRepo } from '../store/repositories/usage.ts';

/** The calendar month (UTC) of a time, as stored: 'YYYY-MM'. */
export const monthOf = (at: Date): string => at.toISOString().slice(0, 7);

/** The first instant of the next calendar month (UTC): when the quota resets. */
export const monthEnd = (at: Date): Date => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));

export type QuotaDecision = { allowed: true } | { allowed: false; retryAfterS: number };
/** The answer of every admitted request, made once (admit runs on every API-key request). */
const ADMITTED: QuotaDecision = Object.freeze({ allowed: true });

export interface QuotaUse {
  /** null: no quota for this org. */
  limit: number | null;
  used: number;
  resetsAt: Date;
}

interface OrgCount {
  month: string;
  /** The shared total as last read or written. */
  known: number;
  /** Admitted here, not yet sent. */
  pending: number;
  /** Being sent by the running flush. */
  sending: number;
  /** The org's own quota (staff setting): undefined until read, null for the default. */
  own: number | null | undefined;
  ownReadAt: number;
  seenAt: number;
}

/** Orgs idle this long are forgotten (their total is read again when they come back). */
const IDLE_MS = 10 * 60_000;
/** How long after the last admitted request the flushes keep reading the shared totals. */
const WATCH_MS = 5000;

export class QuotaCounter {
  readonly #db: Db;
  readonly #clock: () => Date;
  readonly #defaultLimit: number;
  readonly #logger: Logger;
  readonly #flushMs: number;
  /** How long an org's own quota is trusted before it is read again. */
  readonly #settingTtlMs: number;
  readonly #orgs = new Map<string, OrgCount>();
  #timer: NodeJS.Timeout | undefined;
  /** performance.now() of the last admitted request: flushes go on for WATCH_MS after it. */
  #lastAdmit = -Infinity;
  #flushing: Promise<void> | undefined;
  #closed = false;
  /** The current month's key and bounds, recomputed only when the clock leaves them (the hot path). */
  #month = { key: '', startMs: 0, endMs: 0 };

  constructor(deps: { db: Db; clock: () => Date; defaultLimit: number; logger: Logger; flushMs?: number; settingTtlMs?: number }) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#defaultLimit = deps.defaultLimit;
    this.#logger = deps.logger;
    this.#flushMs = deps.flushMs ?? 250;
    this.#settingTtlMs = deps.settingTtlMs ?? 2000;
  }

  /** The hot path: synchronous, in memory. Counts the request when it is admitted. */
  admit(orgId: string): QuotaDecision {
    const now = this.#clock();
    const entry = this.#entry(orgId, now);
    const limit = this.#limitOf(entry);
    if (limit !== null && entry.known + entry.sending + entry.pending >= limit) {
      return { allowed: false, retryAfterS: Math.max(1, Math.ceil((monthEnd(now).getTime() - now.getTime()) / 1000)) };
    }
    entry.pending++;
    this.#lastAdmit = performance.now();
    this.#schedule();
    return ADMITTED;
  }

  /** The org's quota this month: its shared total (read now) plus what this instance has not sent yet. */
  async use(orgId: string): Promise<QuotaUse> {
    // Read while no flush runs (a flush takes the same turn): a flush that committed its counts
    // between the totals' read and the local counts' would be missed by both, and one that committed
    // before the read but had not yet cleared `sending` would be counted twice.
    while (this.#flushing) await this.#flushing;
    const reading = this.#read(orgId);
    this.#flushing = reading
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.#flushing = undefined;
      });
    return reading;
  }

  async #read(orgId: string): Promise<QuotaUse> {
    const now = this.#clock();
    const month = monthOf(now);
    const [total, own] = await Promise.all([usageRepo.totals(this.#db, month, [orgId]), usageRepo.quotas(this.#db, [orgId])]);
    const entry = this.#orgs.get(orgId);
    const local = entry?.month === month ? entry.pending + entry.sending : 0;
    return { limit: this.#effective(own.get(orgId) ?? null), used: (total.get(orgId) ?? 0) + local, resetsAt: monthEnd(now) };
  }

  /** A staff change of the org's own quota: read it again at the next request's flush. */
  forget(orgId: string): void {
    const entry = this.#orgs.get(orgId);
    if (entry) entry.own = undefined;
    this.#schedule();
  }

  /** Sends what is pending now (tests, and shutdown). */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    this.#flushing = this.#flushOnce().finally(() => {
      this.#flushing = undefined;
    });
    await this.#flushing;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush().catch((err: unknown) => this.#logger.warn({ err }, 'quota: could not send the last counts'));
  }

  #monthOf(now: Date): string {
    const ms = now.getTime();
    if (ms < this.#month.startMs || ms >= this.#month.endMs) {
      const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
      this.#month = { key: monthOf(now), startMs: start, endMs: monthEnd(now).getTime() };
    }
    return this.#month.key;
  }

  #entry(orgId: string, now: Date): OrgCount {
    const month = this.#monthOf(now);
    let entry = this.#orgs.get(orgId);
    if (!entry) {
      entry = { month, known: 0, pending: 0, sending: 0, own: undefined, ownReadAt: 0, seenAt: now.getTime() };
      this.#orgs.set(orgId, entry);
    } else if (entry.month !== month) {
      // A new month: the old month's unsent counts are dropped with it (the new month starts at 0).
      Object.assign(entry, { month, known: 0, pending: 0, sending: 0 });
    }
    entry.seenAt = now.getTime();
    return entry;
  }

  #limitOf(entry: OrgCount): number | null {
    return this.#effective(entry.own ?? null);
  }

  #effective(own: number | null): number | null {
    const limit = own ?? this.#defaultLimit;
    return limit === 0 ? null : limit;
  }

  #schedule(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush().catch((err: unknown) => this.#logger.warn({ err }, 'quota: could not add the counts; kept for the next flush'));
    }, this.#flushMs);
    this.#timer.unref();
  }

  async #flushOnce(): Promise<void> {
    const now = this.#clock();
    const month = this.#monthOf(now);
    const counts = new Map<string, number>();
    const watched: string[] = [];
    for (const [orgId, entry] of this.#orgs) {
      if (entry.month !== month) this.#entry(orgId, now);
      if (now.getTime() - entry.seenAt > IDLE_MS && entry.pending === 0) {
        this.#orgs.delete(orgId);
        continue;
      }
      if (entry.pending > 0) {
        counts.set(orgId, entry.pending);
        entry.sending = entry.pending;
        entry.pending = 0;
      } else watched.push(orgId);
    }
    const stale = [...this.#orgs].filter(([, e]) => e.own === undefined || now.getTime() - e.ownReadAt > this.#settingTtlMs).map(([id]) => id);
    try {
      const [added, read, own] = await Promise.all([
        usageRepo.add(this.#db, month, counts),
        usageRepo.totals(this.#db, month, watched),
        usageRepo.quotas(this.#db, stale),
      ]);
      for (const [orgId, total] of [...added, ...read]) {
        const entry = this.#orgs.get(orgId);
        if (entry?.month === month) entry.known = total;
      }
      for (const [orgId, limit] of own) {
        const entry = this.#orgs.get(orgId);
        if (entry) Object.assign(entry, { own: limit, ownReadAt: now.getTime() });
      }
    } catch (err) {
      for (const [orgId, n] of counts) {
        const entry = this.#orgs.get(orgId);
        if (entry?.month === month) entry.pending += n;
      }
      throw err;
    } finally {
      for (const orgId of counts.keys()) {
        const entry = this.#orgs.get(orgId);
        if (entry) entry.sending = 0;
      }
      // While requests come, the totals keep being read: another instance's counts reach this one.
      if ([...this.#orgs.values()].some((e) => e.pending > 0) || performance.now() - this.#lastAdmit < WATCH_MS) this.#schedule();
    }
  }
}
