import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { GoogleIntegrationRow } from '../schema.ts';

/** The service account's key, as stored: its public identifiers and its sealed private key. */
export interface GoogleKey {
  clientEmail: string;
  clientId: string;
  privateKeyId: string;
  projectId: string;
  sealedPrivateKey: string;
}

export interface GoogleSettings {
  adminEmail: string;
  syncUsers: boolean;
  pushSignatures: boolean;
}

// The org's Google Workspace connection. Every function takes the org id and filters by it, but
// the scheduler's, which look across orgs for work that is due.
export const googleRepo = {
  async find(db: Db, orgId: string): Promise<GoogleIntegrationRow | undefined> {
    return db.selectFrom('google_integrations').selectAll().where('org_id', '=', orgId).executeTakeFirst();
  },

  /** Connects, or replaces the connection's key and settings; either clears the last error. */
  async upsert(
    db: Db,
    orgId: string,
    key: GoogleKey,
    settings: GoogleSettings,
    syncIntervalS: number,
  ): Promise<{ row: GoogleIntegrationRow; created: boolean }> {
    const values = {
      client_email: key.clientEmail,
      client_id: key.clientId,
      private_key_id: key.privateKeyId,
      project_id: key.projectId,
      sealed_private_key: key.sealedPrivateKey,
      ...settingsColumns(settings),
    };
    const row = await db
      .insertInto('google_integrations')
      // The connection queues its first sync itself: the scheduler's is due an interval later.
      .values({ org_id: orgId, ...values, next_sync_at: sql`now() + make_interval(secs => ${syncIntervalS})` })
      .onConflict((oc) =>
        oc.column('org_id').doUpdateSet({
          ...values,
          last_error: null,
          last_error_at: null,
          version: sql`google_integrations.version + 1`,
          updated_at: sql`now()`,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row, created: row.version === 1 };
  },

  /**
   * Changes the settings of an existing connection and clears the last error, leaving the key
   * columns as they are stored: never a copy read earlier, which `sigsvc secrets rekey` may have
   * sealed again meanwhile. undefined when there is no connection (it was removed meanwhile).
   */
  async updateSettings(db: Db, orgId: string, settings: GoogleSettings): Promise<GoogleIntegrationRow | undefined> {
    return db
      .updateTable('google_integrations')
      .set({
        ...settingsColumns(settings),
        last_error: null,
        last_error_at: null,
        version: sql`version + 1`,
        updated_at: sql`now()`,
      })
      .where('org_id', '=', orgId)
      .returningAll()
      .executeTakeFirst();
  },

  async remove(db: Db, orgId: string): Promise<boolean> {
    const r = await db.deleteFrom('google_integrations').where('org_id', '=', orgId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  },

  async recordOutcome(db: Db, orgId: string, what: 'sync' | 'push', error: string | null): Promise<void> {
    await db
      .updateTable('google_integrations')
      .set({
        ...(error === null ? { [what === 'sync' ? 'last_sync_at' : 'last_push_at']: sql`now()`, last_error: null, last_error_at: null } : {}),
        ...(error !== null ? { last_error: error, last_error_at: sql`now()` } : {}),
      })
      .where('org_id', '=', orgId)
      .execute();
  },

  /**
   * Orgs whose directory sync is due, their next one set `intervalS` ahead in the same statement.
   * SKIP LOCKED: two instances ticking at once split the orgs instead of both taking them.
   */
  async claimDueSyncs(db: Db, intervalS: number): Promise<string[]> {
    const rows = await sql<{ org_id: string }>`
      update google_integrations g set next_sync_at = now() + make_interval(secs => ${intervalS})
      where g.org_id in (
        select org_id from google_integrations
        where sync_users and next_sync_at <= now()
        for update skip locked
      )
      returning g.org_id`.execute(db);
    return rows.rows.map((r) => r.org_id);
  },

  /**
   * Orgs where a user, a template, the org itself, its rules or its groups changed since the last
   * push was queued (the rules and the groups choose each person's template); the
   * newest change is marked seen in the same statement (compared in the database, so no precision
   * is lost on the way through a JavaScript Date).
   */
  async claimChanged(db: Db, now: Date): Promise<string[]> {
    const rows = await sql<{ org_id: string }>`
      with latest as (
        select g.org_id, greatest(
          (select max(u.updated_at) from users u where u.org_id = g.org_id),
          (select max(t.updated_at) from templates t where t.org_id = g.org_id),
          (select o.updated_at from orgs o where o.id = g.org_id),
          (select r.updated_at from org_rules r where r.org_id = g.org_id),
          (select max(sg.updated_at) from scim_groups sg where sg.org_id = g.org_id),
          -- A campaign's start, end, change or deletion, once it has come (migration 131).
          (select max(v.at) from campaigns c cross join lateral (values (c.starts_at), (c.ends_at), (c.updated_at), (c.deleted_at)) v(at)
            where c.org_id = g.org_id and v.at <= ${now})
        ) as at
        from google_integrations g
        where g.push_signatures
        for update of g skip locked
      )
      update google_integrations g set changes_seen_at = latest.at
      from latest
      where g.org_id = latest.org_id and latest.at > g.changes_seen_at
      returning g.org_id`.execute(db);
    return rows.rows.map((r) => r.org_id);
  },

  /**
   * Takes (or renews, with the same token) the org's sync or push lease for `seconds`; false while
   * another run holds it.
   */
  async lease(db: Db, orgId: string, what: 'sync' | 'push', token: string, seconds: number): Promise<boolean> {
    const column = what === 'sync' ? sql.ref('sync_lease_until') : sql.ref('push_lease_until');
    const tokenColumn = what === 'sync' ? sql.ref('sync_lease_token') : sql.ref('push_lease_token');
    const r = await sql`
      update google_integrations set ${column} = now() + make_interval(secs => ${seconds}), ${tokenColumn} = ${token}
      where org_id = ${orgId} and (${column} is null or ${column} < now() or ${tokenColumn} = ${token})`.execute(db);
    return Number(r.numAffectedRows ?? 0) > 0;
  },

  async release(db: Db, orgId: string, what: 'sync' | 'push', token: string): Promise<void> {
    const column = what === 'sync' ? sql.ref('sync_lease_until') : sql.ref('push_lease_until');
    const tokenColumn = what === 'sync' ? sql.ref('sync_lease_token') : sql.ref('push_lease_token');
    await sql`update google_integrations set ${column} = null, ${tokenColumn} = null where org_id = ${orgId} and ${tokenColumn} = ${token}`.execute(db);
  },

  /** Live users of the org to push (all, or those named), in a stable order. */
  async pushTargets(db: Db, orgId: string, userIds: string[] | undefined) {
    let query = db.selectFrom('users').select(['id', 'email', 'status']).where('org_id', '=', orgId).where('deleted_at', 'is', null);
    if (userIds) query = query.where('id', 'in', userIds.length ? userIds : ['00000000-0000-0000-0000-000000000000']);
    return query.orderBy('seq').execute();
  },
};

function settingsColumns(s: GoogleSettings) {
  return { admin_email: s.adminEmail, sync_users: s.syncUsers, push_signatures: s.pushSignatures };
}
