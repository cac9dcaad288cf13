import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { AllowedNetwork, GatewayErrorRow, GatewayOutcome, GatewaySettingsRow, OrgDomainRow } from '../schema.ts';

// The SMTP gateway's tables (src/gateway/). Every function of an org's data takes its org id, but
// the lookups a connection makes before it knows its org: the owner of a verified domain, the
// gateway of a user name or SNI name, the orgs listing an address range, and staff's error list.
export const domainsRepo = {
  list(db: Db, orgId: string): Promise<OrgDomainRow[]> {
    return db.selectFrom('org_domains').selectAll().where('org_id', '=', orgId).orderBy('domain').execute();
  },

  find(db: Db, orgId: string, domain: string): Promise<OrgDomainRow | undefined> {
    return db.selectFrom('org_domains').selectAll().where('org_id', '=', orgId).where('domain', '=', domain).executeTakeFirst();
  },

  /** Claims a domain; undefined when the org claimed it already. */
  async insert(db: Db, row: { orgId: string; domain: string; token: string }): Promise<OrgDomainRow | undefined> {
    return db
      .insertInto('org_domains')
      .values({ org_id: row.orgId, domain: row.domain, token: row.token })
      .onConflict((oc) => oc.columns(['org_id', 'domain']).doNothing())
      .returningAll()
      .executeTakeFirst();
  },

  async remove(db: Db, orgId: string, domain: string): Promise<boolean> {
    const rows = await db.deleteFrom('org_domains').where('org_id', '=', orgId).where('domain', '=', domain).returning('domain').execute();
    return rows.length > 0;
  },

  /** Marks it verified (the unique index refuses a second org: the caller maps that to 409). */
  async markVerified(db: Db, orgId: string, domain: string, by: 'dns' | 'staff', at: Date): Promise<OrgDomainRow | undefined> {
    return db
      .updateTable('org_domains')
      .set({ verified_at: at, verified_by: by })
      .where('org_id', '=', orgId)
      .where('domain', '=', domain)
      .returningAll()
      .executeTakeFirst();
  },

  /** The org a domain is verified for, if any. */
  async verifiedOwner(db: Db, domain: string): Promise<string | undefined> {
    const row = await db.selectFrom('org_domains').select('org_id').where('domain', '=', domain).where('verified_at', 'is not', null).executeTakeFirst();
    return row?.org_id;
  },

  async verifiedOf(db: Db, orgId: string): Promise<string[]> {
    const rows = await db.selectFrom('org_domains').select('domain').where('org_id', '=', orgId).where('verified_at', 'is not', null).execute();
    return rows.map((r) => r.domain);
  },
};

export interface GatewaySettingsWrite {
  orgId: string;
  nextHop: { host: string; port: number; secure: boolean };
  allowedNetworks: AllowedNetwork[];
  stampInternal: boolean;
  m365TenantId: string | null;
}

export const gatewayRepo = {
  find(db: Db, orgId: string): Promise<GatewaySettingsRow | undefined> {
    return db.selectFrom('gateway_settings').selectAll().where('org_id', '=', orgId).executeTakeFirst();
  },

  findByGatewayId(db: Db, gatewayId: string): Promise<GatewaySettingsRow | undefined> {
    return db.selectFrom('gateway_settings').selectAll().where('gateway_id', '=', gatewayId).executeTakeFirst();
  },

  findByTenant(db: Db, m365TenantId: string): Promise<GatewaySettingsRow[]> {
    return db.selectFrom('gateway_settings').selectAll().where(sql<string>`lower(m365_tenant_id)`, '=', m365TenantId.toLowerCase()).execute();
  },

  /** Gateways without a tenant id of their own (their Microsoft integration's may name them). */
  withoutTenant(db: Db): Promise<GatewaySettingsRow[]> {
    return db.selectFrom('gateway_settings').selectAll().where('m365_tenant_id', 'is', null).execute();
  },

  /** Every gateway that lists at least one network (a connection's address is matched against them). */
  withNetworks(db: Db): Promise<GatewaySettingsRow[]> {
    return db.selectFrom('gateway_settings').selectAll().where(sql<boolean>`jsonb_array_length(allowed_networks) > 0`).execute();
  },

  /** Creates (with the credentials given) or updates the settings, keeping existing credentials. */
  async upsert(db: Db, w: GatewaySettingsWrite, created: { gatewayId: string; passwordHash: string }): Promise<{ row: GatewaySettingsRow; created: boolean }> {
    const values = {
      next_hop_host: w.nextHop.host,
      next_hop_port: w.nextHop.port,
      next_hop_secure: w.nextHop.secure,
      allowed_networks: JSON.stringify(w.allowedNetworks),
      stamp_internal: w.stampInternal,
      m365_tenant_id: w.m365TenantId,
    };
    const row = await db
      .insertInto('gateway_settings')
      .values({ org_id: w.orgId, gateway_id: created.gatewayId, password_hash: created.passwordHash, ...values })
      .onConflict((oc) => oc.column('org_id').doUpdateSet({ ...values, version: sql`gateway_settings.version + 1`, updated_at: sql`now()` }))
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row, created: row.version === 1 };
  },

  async setPassword(db: Db, orgId: string, passwordHash: string): Promise<GatewaySettingsRow | undefined> {
    return db
      .updateTable('gateway_settings')
      .set({ password_hash: passwordHash, version: sql`version + 1`, updated_at: sql`now()` })
      .where('org_id', '=', orgId)
      .returningAll()
      .executeTakeFirst();
  },

  /** Adds counts of messages (org, UTC day, outcome), and when each org's last one came. */
  async addCounts(db: Db, rows: { orgId: string; day: string; outcome: GatewayOutcome; count: number; lastAt: Date }[]): Promise<void> {
    if (rows.length === 0) return;
    await db
      .insertInto('gateway_counts')
      .values(rows.map((r) => ({ org_id: r.orgId, day: r.day, outcome: r.outcome, count: r.count })))
      .onConflict((oc) => oc.columns(['org_id', 'day', 'outcome']).doUpdateSet({ count: sql`gateway_counts.count + excluded.count` }))
      .execute();
    const last = new Map<string, Date>();
    for (const r of rows) if (!last.has(r.orgId) || r.lastAt > last.get(r.orgId)!) last.set(r.orgId, r.lastAt);
    for (const [orgId, at] of last) {
      await db
        .updateTable('gateway_settings')
        .set({ last_message_at: at })
        .where('org_id', '=', orgId)
        .where((eb) => eb.or([eb('last_message_at', 'is', null), eb('last_message_at', '<', at)]))
        .execute();
    }
  },

  async countsOf(db: Db, orgId: string, day: string): Promise<Record<GatewayOutcome, number>> {
    const rows = await db.selectFrom('gateway_counts').select(['outcome', 'count']).where('org_id', '=', orgId).where('day', '=', day).execute();
    const counts: Record<GatewayOutcome, number> = { stamped: 0, passed: 0, refused: 0, failed: 0 };
    for (const r of rows) counts[r.outcome] = r.count;
    return counts;
  },

  async recordError(db: Db, e: Omit<GatewayErrorRow, 'seq'>): Promise<void> {
    await db.insertInto('gateway_errors').values(e).execute();
  },

  /** Staff's list across orgs, newest first. */
  listErrors(db: Db, filter: { orgId?: string | undefined; from?: Date | undefined; to?: Date | undefined }, limit: number): Promise<GatewayErrorRow[]> {
    let q = db.selectFrom('gateway_errors').selectAll();
    if (filter.orgId) q = q.where('org_id', '=', filter.orgId);
    if (filter.from) q = q.where('at', '>=', filter.from);
    if (filter.to) q = q.where('at', '<', filter.to);
    return q.orderBy('seq', 'desc').limit(limit).execute();
  },
};
