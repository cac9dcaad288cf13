// The UTC date (`YYYY-MM-DD`) of a time, remembered with its day's bounds: the write-behind
// counters (opens, impressions) ask on every request, and the day changes once a day.
/** The first UTC day the database can hold (PostgreSQL has no year 0): the floor of every day a client names. */
export const FIRST_DAY = '0001-01-01';

export class UtcDay {
  #key = '';
  #startMs = 0;
  #endMs = 0;

  of(at: Date): string {
    const ms = at.getTime();
    if (ms < this.#startMs || ms >= this.#endMs) {
      this.#startMs = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
      this.#endMs = this.#startMs + 86_400_000;
      this.#key = at.toISOString().slice(0, 10);
    }
    return this.#key;
  }
}
