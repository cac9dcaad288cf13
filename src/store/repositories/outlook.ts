import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { OutlookAddinRow, UserRow } from '../schema.ts';
import { deploymentsRepo, type DeploymentWrite } from './deployments.ts';

/** What one fetch of the add-in left for a user: their `outlook` deployment row, and when. */
export interface AddinFetchWrite {
  at: Date;
  deployment: DeploymentWrite;
}

export const outlookRepo = {
  async find(db: Db, orgId: string): Promise<OutlookAddinRow | undefined> {
    return db.selectFrom('outlook_addins').selectAll().where('org_id', '=', orgId).executeTakeFirst();
  },

  /** Creates the org's add-in row unless it exists; answers the row that is there either way. */
  async ensure(db: Db, orgId: string, key: { hash: string; sealed: string }): Promise<{ row: OutlookAddinRow; created: boolean }> {
    const inserted = await db
      .insertInto('outlook_addins')
      .values({ org_id: orgId, key_hash: key.hash, key_sealed: key.sealed })
      .onConflict((oc) => oc.column('org_id').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { row: inserted, created: true };
    return { row: await db.selectFrom('outlook_addins').selectAll().where('org_id', '=', orgId).executeTakeFirstOrThrow(), created: false };
  },

  async rotate(db: Db, orgId: string, key: { hash: string; sealed: string }, at: Date): Promise<{ row: OutlookAddinRow; oldHash: string } | undefined> {
    const old = await db.selectFrom('outlook_addins').select('key_hash').where('org_id', '=', orgId).forUpdate().executeTakeFirst();
    if (!old) return undefined;
    const row = await db
      .updateTable('outlook_addins')
      .set({ key_hash: key.hash, key_sealed: key.sealed, key_version: sql`key_version + 1`, rotated_at: at })
      .where('org_id', '=', orgId)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row, oldHash: old.key_hash };
  },

  async orgOfKey(db: Db, keyHash: string): Promise<string | undefined> {
    return (await db.selectFrom('outlook_addins').select('org_id').where('key_hash', '=', keyHash).executeTakeFirst())?.org_id;
  },

  /** The live user of the org with this address (case-insensitive, as the unique index). */
  async liveUserByEmail(db: Db, orgId: string, email: string): Promise<UserRow | undefined> {
    return (
      db
        .selectFrom('users')
        .selectAll()
        .where('org_id', '=', orgId)
        .where(sql<string>`lower(email)`, '=', email.toLowerCase())
        .where('deleted_at', 'is', null)
        // A suspended user gets no signature: the same 404 as an unknown sender.
        .where('status', '<>', 'suspended')
        .executeTakeFirst()
    );
  },

  /**
   * Records fetches as the users' `outlook` deployments (for the add-in, the signature is deployed
   * when Outlook fetched it) and the org's last fetch, in one transaction.
   */
  async recordFetches(db: Db, fetches: AddinFetchWrite[]): Promise<void> {
    if (fetches.length === 0) return;
    await db.transaction().execute(async (tx) => {
      // Users deleted since their fetch have no row to write: the live ones only.
      const live = new Set(
        (
          await tx
            .selectFrom('users')
            .select('id')
            .where('id', 'in', [...new Set(fetches.map((f) => f.deployment.userId))])
            .where('deleted_at', 'is', null)
            .execute()
        ).map((r) => r.id),
      );
      for (const f of fetches) {
        if (!live.has(f.deployment.userId)) continue;
        await deploymentsRepo.record(tx, f.deployment);
      }
      const latest = new Map<string, Date>();
      for (const {
        deployment: { orgId },
        at,
      } of fetches)
        if (!latest.has(orgId) || latest.get(orgId)! < at) latest.set(orgId, at);
      for (const [orgId, at] of latest) {
        await tx
          .updateTable('outlook_addins')
          .set({ last_fetch_at: sql<Date>`greatest(coalesce(last_fetch_at, ${at}), ${at})` })
          .where('org_id', '=', orgId)
          .execute();
      }
    });
  },
};
