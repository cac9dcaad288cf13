import { sql } from 'kysely';
import type { Db } from '../db.ts';

export interface OpenCount {
  userId: string;
  day: string;
  real: number;
  proxied: number;
}

export const opensRepo = {
  /** Adds counts in one statement, for live users only: unknown and deleted users are skipped. */
  async add(db: Db, counts: OpenCount[]): Promise<void> {
    if (counts.length === 0) return;
    await sql`
      insert into opens (org_id, user_id, day, real, proxied)
      select u.org_id, u.id, c.day, c.real, c.proxied
      from unnest(${counts.map((c) => c.userId)}::uuid[], ${counts.map((c) => c.day)}::date[],
                  ${counts.map((c) => c.real)}::int[], ${counts.map((c) => c.proxied)}::int[]) as c(user_id, day, real, proxied)
      join users u on u.id = c.user_id and u.deleted_at is null
      on conflict (user_id, day) do update
        set real = opens.real + excluded.real, proxied = opens.proxied + excluded.proxied`.execute(db);
  },

  async daily(db: Db, orgId: string, filter: { from: string; to: string; userId?: string | undefined }) {
    let query = db
      .selectFrom('opens')
      .select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'), sql<number>`sum(real)::int`.as('real'), sql<number>`sum(proxied)::int`.as('proxied')])
      .where('org_id', '=', orgId)
      .where('day', '>=', filter.from)
      .where('day', '<=', filter.to);
    if (filter.userId) query = query.where('user_id', '=', filter.userId);
    return query.groupBy('day').orderBy('day').execute();
  },
};
