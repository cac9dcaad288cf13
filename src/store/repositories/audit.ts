import type { Db } from '../db.ts';
import type { ActorType, AuditRow } from '../schema.ts';

export interface AuditEntry {
  /** Null for a staff action that concerns no org. */
  orgId: string | null;
  actor: { type: ActorType; id: string };
  action: string;
  targetId: string | null;
  correlationId: string | null;
  changes?: string[];
}

/** Each given field narrows the list; `from` is inclusive, `to` exclusive. */
export interface AuditFilter {
  action?: string | undefined;
  targetId?: string | undefined;
  actorId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

export const auditRepo = {
  async insert(db: Db, entry: AuditEntry): Promise<AuditRow[]> {
    return auditRepo.insertMany(db, [entry]);
  },

  /** Several entries in one statement, in the order given; answers the rows written. */
  async insertMany(db: Db, entries: AuditEntry[]): Promise<AuditRow[]> {
    if (entries.length === 0) return [];
    return db
      .insertInto('audit_entries')
      .values(
        entries.map((entry) => ({
          org_id: entry.orgId,
          actor_type: entry.actor.type,
          actor_id: entry.actor.id,
          action: entry.action,
          target_id: entry.targetId,
          correlation_id: entry.correlationId,
          changes: entry.changes ?? [],
        })),
      )
      .returningAll()
      .execute();
  },

  /** Newest first; `before` is the id of the last entry of the previous page. */
  async list(db: Db, orgId: string, filter: AuditFilter, before: string | undefined, limit: number): Promise<AuditRow[]> {
    let query = db.selectFrom('audit_entries').selectAll().where('org_id', '=', orgId);
    if (filter.action) query = query.where('action', '=', filter.action);
    if (filter.targetId) query = query.where('target_id', '=', filter.targetId);
    if (filter.actorId) query = query.where('actor_id', '=', filter.actorId);
    if (filter.from) query = query.where('at', '>=', filter.from);
    if (filter.to) query = query.where('at', '<', filter.to);
    if (before !== undefined) query = query.where('id', '<', before);
    return query
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
  },

  /** Every staff action, across orgs (and those of no org), newest first. */
  async listStaff(
    db: Db,
    filter: { action?: string | undefined; actorId?: string | undefined; orgId?: string | undefined },
    before: string | undefined,
    limit: number,
  ): Promise<AuditRow[]> {
    let query = db.selectFrom('audit_entries').selectAll().where('actor_type', '=', 'staff');
    if (filter.action) query = query.where('action', '=', filter.action);
    if (filter.actorId) query = query.where('actor_id', '=', filter.actorId);
    if (filter.orgId) query = query.where('org_id', '=', filter.orgId);
    if (before !== undefined) query = query.where('id', '<', before);
    return query
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
  },
};
