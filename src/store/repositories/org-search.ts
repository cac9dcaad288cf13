// The staff's search over every org (GET /v1/admin/orgs): text, billing filters, sort orders, and
// keyset pages for each order.
import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from '../db.ts';
import type { DB } from '../schema.ts';
import { effective, seatsUsedColumn, type OrgWithUsage } from './orgs.ts';

export type OrgSort = 'newest' | 'oldest' | 'name' | '-name';

export interface OrgSearch {
  /** Part of the name (any case), the whole org id, or the start of the provider's customer id. */
  q?: string | undefined;
  status?: string | undefined;
  /** Writes blocked: a grace period ended while the status is one of `graceStatuses`. */
  blocked?: boolean | undefined;
  /** A grace period still running (past due, canceled, … and not yet ended). */
  inGrace?: boolean | undefined;
  overSeatLimit?: boolean | undefined;
  graceStatuses: readonly string[];
  now: Date;
}

/** Where the previous page ended: the seq, and the name too when sorting by name. */
export interface OrgPosition {
  seq: string;
  name?: string | undefined;
}

const likePattern = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export const orgSearchRepo = {
  async search(db: Db, f: OrgSearch, sort: OrgSort, after: OrgPosition | undefined, limit: number): Promise<OrgWithUsage[]> {
    const graceRunning = (eb: ExpressionBuilder<DB, 'orgs'>) =>
      eb.and([eb('subscription_status', 'in', [...f.graceStatuses]), eb('grace_period_ends_at', 'is not', null)]);
    let query = db.selectFrom('orgs').selectAll('orgs').select(seatsUsedColumn);
    const q = f.q?.trim();
    if (q) {
      query = query.where((eb) =>
        eb.or([
          eb(sql`orgs.name`, 'ilike', `%${likePattern(q)}%`),
          eb(sql`orgs.id::text`, '=', q.toLowerCase()),
          eb('provider_customer_id', 'like', `${likePattern(q)}%`),
        ]),
      );
    }
    if (f.status) query = query.where('subscription_status', '=', f.status);
    if (f.overSeatLimit !== undefined) query = query.where('over_seat_limit', '=', f.overSeatLimit);
    if (f.blocked !== undefined) {
      query = query.where((eb) => {
        const blocked = eb.and([graceRunning(eb), eb('grace_period_ends_at', '<=', f.now)]);
        return f.blocked ? blocked : eb.not(blocked);
      });
    }
    if (f.inGrace !== undefined) {
      query = query.where((eb) => {
        const running = eb.and([graceRunning(eb), eb('grace_period_ends_at', '>', f.now)]);
        return f.inGrace ? running : eb.not(running);
      });
    }
    if (after) {
      switch (sort) {
        case 'newest':
          query = query.where('seq', '<', after.seq);
          break;
        case 'oldest':
          query = query.where('seq', '>', after.seq);
          break;
        case 'name':
          query = query.where(sql<boolean>`(lower(orgs.name), orgs.seq) > (${after.name ?? ''}, ${after.seq}::bigint)`);
          break;
        case '-name':
          query = query.where(sql<boolean>`(lower(orgs.name), orgs.seq) < (${after.name ?? ''}, ${after.seq}::bigint)`);
          break;
      }
    }
    switch (sort) {
      case 'newest':
        query = query.orderBy('seq', 'desc');
        break;
      case 'oldest':
        query = query.orderBy('seq', 'asc');
        break;
      case 'name':
        query = query.orderBy(sql`lower(orgs.name)`, 'asc').orderBy('seq', 'asc');
        break;
      case '-name':
        query = query.orderBy(sql`lower(orgs.name)`, 'desc').orderBy('seq', 'desc');
        break;
    }
    return (await query.limit(limit + 1).execute()).map(effective);
  },
};
