// Staff accounts as the staff API manages them (sign-in state lives in accounts.ts).
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { StaffRow } from '../schema.ts';

export type StaffStatus = 'invited' | 'active' | 'disabled';

/** The SQL form of a staff member's status: disabled (deleted_at), else invited until a password is set. */
const statusIs = (status: StaffStatus) =>
  status === 'disabled'
    ? sql<boolean>`deleted_at is not null`
    : status === 'invited'
      ? sql<boolean>`deleted_at is null and password_hash is null`
      : sql<boolean>`deleted_at is null and password_hash is not null`;

export const staffRepo = {
  /** In the order they were added; `after` is the seq of the last row of the previous page. */
  async list(db: Db, filter: { status?: StaffStatus | undefined }, after: string | undefined, limit: number): Promise<StaffRow[]> {
    let query = db.selectFrom('staff').selectAll();
    if (filter.status) query = query.where(statusIs(filter.status));
    if (after !== undefined) query = query.where('seq', '>', after);
    return query
      .orderBy('seq')
      .limit(limit + 1)
      .execute();
  },

  /** A staff member by id, disabled ones included. */
  async find(db: Db, id: string): Promise<StaffRow | undefined> {
    return db.selectFrom('staff').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** A staff member without a password yet: they set one through their invitation. */
  async insertInvited(db: Db, staff: { id: string; email: string; name: string }): Promise<StaffRow> {
    return db
      .insertInto('staff')
      .values({ ...staff, password_hash: null })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /** Disables a live staff member; false when there is none with this id. */
  async disable(db: Db, id: string, at: Date): Promise<boolean> {
    const result = await db.updateTable('staff').set({ deleted_at: at }).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },
};
