// Open tracking: fetches of the pixel counted per user and day (open-counter.ts keeps them off
// the request path), and the daily counts an org reads back.
import type { Db } from '../store/db.ts';
import { opensRepo } from '../store/repositories/opens.ts';
import { badRequest } from '../kernel/errors.ts';
import { isUuid } from '../kernel/ids.ts';
import { isProxy, type OpenCounter } from './open-counter.ts';
import { FIRST_DAY } from '../lib/utc-day.ts';

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
// ISO days of years 1 to 9999 (FIRST_DAY): PostgreSQL has no year 0 (a 500 from the database otherwise).
// Such days compare as strings (toISOString writes year 0 as 0000, earlier ones with a minus sign).
const maxDay = (a: string, b: string) => (a > b ? a : b);

export function createTrackingService(deps: { db: Db; counter: OpenCounter; clock: () => Date }) {
  return {
    /** Counts one fetch of the pixel. Malformed ids are not counted; unknown users are dropped at write time. */
    recordOpen(userId: string, userAgent: string | undefined): void {
      if (isUuid(userId)) deps.counter.record(userId.toLowerCase(), isProxy(userAgent), deps.clock());
    },

    /** Every day of the range (UTC, default the last 30 days) with opens, at most 366 days at once. */
    async daily(orgId: string, query: { from?: string | undefined; to?: string | undefined; userId?: string | undefined }) {
      const to = query.to ?? dayOf(deps.clock().getTime());
      const from = query.from ?? maxDay(FIRST_DAY, dayOf(Date.parse(to) - 29 * DAY_MS));
      if (from > to) throw badRequest('query.from: must not be after `to`', { field: 'query.from' });
      if (Date.parse(to) - Date.parse(from) > 366 * DAY_MS) throw badRequest('query.from: at most 366 days at once', { field: 'query.from' });
      return opensRepo.daily(deps.db, orgId, { from, to, userId: query.userId });
    },
  };
}

export type TrackingService = ReturnType<typeof createTrackingService>;
