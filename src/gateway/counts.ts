// The gateway's per-org counts, added up in memory and written once a second (a message costs no
// write of its own); a read of the counts on this instance writes what is pending first.
import type { GatewayOutcome } from '../store/schema.ts';

export interface CountRow {
  orgId: string;
  day: string;
  outcome: GatewayOutcome;
  count: number;
  lastAt: Date;
}

export class GatewayCounts {
  readonly #write: (rows: CountRow[]) => Promise<void>;
  readonly #warn: (err: unknown) => void;
  #pending = new Map<string, CountRow>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(write: (rows: CountRow[]) => Promise<void>, warn: (err: unknown) => void) {
    this.#write = write;
    this.#warn = warn;
  }

  add(orgId: string, outcome: GatewayOutcome, at: Date): void {
    const day = at.toISOString().slice(0, 10);
    const key = `${orgId}:${day}:${outcome}`;
    const row = this.#pending.get(key);
    if (row) {
      row.count++;
      if (at > row.lastAt) row.lastAt = at;
    } else {
      this.#pending.set(key, { orgId, day, outcome, count: 1, lastAt: at });
    }
    this.#timer ??= setTimeout(() => void this.flush(), 1000).unref();
  }

  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.size === 0) return this.#flushing;
    const rows = [...this.#pending.values()];
    this.#pending = new Map();
    this.#flushing = this.#flushing.then(() => this.#write(rows).catch((err: unknown) => this.#warn(err)));
    return this.#flushing;
  }
}
