import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { MicrosoftIntegrationRow } from '../schema.ts';

// The Microsoft Entra connection of each org. Every function takes the org id, but the scheduler's
// claim, which looks across orgs for due syncs.
export const microsoftRepo = {
  async find(db: Db, orgId: string): Promise<MicrosoftIntegrationRow | undefined> {
    return db.selectFrom('microsoft_integrations').selectAll().where('org_id', '=', orgId).executeTakeFirst();
  },

  /**
   * Creates or replaces the connection. Its caller queues a sync at once, so the scheduler's next one
   * is an interval later (due at once, the scheduler's tick queued a second sync beside the first,
   * which ran twice when the first had already started).
   */
  async upsert(
    db: Db,
    c: { orgId: string; tenantId: string; clientId: string; sealedSecret: string; syncIntervalS: number },
  ): Promise<{ row: MicrosoftIntegrationRow; created: boolean }> {
    const nextSyncAt = sql<Date>`now() + make_interval(secs => ${c.syncIntervalS})`;
    const row = await db
      .insertInto('microsoft_integrations')
      .values({ org_id: c.orgId, tenant_id: c.tenantId, client_id: c.clientId, sealed_secret: c.sealedSecret, next_sync_at: nextSyncAt })
      .onConflict((oc) =>
        oc.column('org_id').doUpdateSet({
          tenant_id: c.tenantId,
          client_id: c.clientId,
          sealed_secret: c.sealedSecret,
          next_sync_at: nextSyncAt,
          last_error: null,
          last_error_at: null,
          version: sql`microsoft_integrations.version + 1`,
          updated_at: sql`now()`,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row, created: row.version === 1 };
  },

  async remove(db: Db, orgId: string): Promise<boolean> {
    const rows = await db.deleteFrom('microsoft_integrations').where('org_id', '=', orgId).returning('org_id').execute();
    return rows.length > 0;
  },

  /** What the last sync ended with: its time, or the error an admin should read. */
  async recordOutcome(db: Db, orgId: string, error: string | null, at: Date): Promise<void> {
    await db
      .updateTable('microsoft_integrations')
      .set(error === null ? { last_sync_at: at, last_error: null, last_error_at: null } : { last_error: error, last_error_at: at })
      .where('org_id', '=', orgId)
      .execute();
  },

  /**
   * The orgs whose sync is due, each moved to its next time in the same statement (so one instance
   * queues it, whatever the number of instances ticking).
   */
  async claimDue(db: Db, intervalS: number, limit = 100): Promise<string[]> {
    const rows = await sql<{ org_id: string }>`
      update microsoft_integrations m set next_sync_at = now() + make_interval(secs => ${intervalS})
      where m.org_id in (
        select org_id from microsoft_integrations where next_sync_at <= now()
        order by next_sync_at limit ${limit} for update skip locked)
      returning m.org_id`.execute(db);
    return rows.rows.map((r) => r.org_id);
  },
};
