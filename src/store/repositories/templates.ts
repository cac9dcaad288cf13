import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { TemplateRow, TemplatesTable } from '../schema.ts';
import type { Insertable, Updateable } from 'kysely';
import { atVersion, type VersionCheck } from '../conditional.ts';

export const templatesRepo = {
  async insert(db: Db, template: Insertable<TemplatesTable>): Promise<TemplateRow> {
    return db.insertInto('templates').values(template).returningAll().executeTakeFirstOrThrow();
  },

  async find(db: Db, orgId: string, templateId: string): Promise<TemplateRow | undefined> {
    return db.selectFrom('templates').selectAll().where('org_id', '=', orgId).where('id', '=', templateId).where('deleted_at', 'is', null).executeTakeFirst();
  },

  async findDefault(db: Db, orgId: string): Promise<TemplateRow | undefined> {
    return db.selectFrom('templates').selectAll().where('org_id', '=', orgId).where('is_default', '=', true).where('deleted_at', 'is', null).executeTakeFirst();
  },

  async list(db: Db, orgId: string, after: string | undefined, limit: number): Promise<TemplateRow[]> {
    let query = db.selectFrom('templates').selectAll().where('org_id', '=', orgId).where('deleted_at', 'is', null);
    if (after !== undefined) query = query.where('seq', '>', after);
    return query
      .orderBy('seq')
      .limit(limit + 1)
      .execute();
  },

  /**
   * Serializes changes of the org's default template until the transaction ends: without it, two
   * concurrent saves each clear the old default and both insert one, and the second breaks the
   * unique index (templates_one_default). The org's row is the lock; NO KEY UPDATE leaves inserts
   * that reference the org (their foreign-key check takes KEY SHARE) unblocked.
   */
  async lockDefault(db: Db, orgId: string): Promise<void> {
    await db.selectFrom('orgs').select('id').where('id', '=', orgId).forNoKeyUpdate().execute();
  },

  /** Makes no live template of the org the default (before another becomes it). */
  async clearDefault(db: Db, orgId: string, exceptId?: string): Promise<void> {
    let query = db
      .updateTable('templates')
      .set({ is_default: false, version: sql`version + 1`, updated_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where('is_default', '=', true)
      .where('deleted_at', 'is', null);
    if (exceptId) query = query.where('id', '!=', exceptId);
    await query.execute();
  },

  async update(db: Db, orgId: string, templateId: string, check: VersionCheck, patch: Updateable<TemplatesTable>): Promise<TemplateRow | undefined> {
    return db
      .updateTable('templates')
      .set({ ...patch, version: sql`version + 1`, updated_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where('id', '=', templateId)
      .where('deleted_at', 'is', null)
      .where(atVersion(check))
      .returningAll()
      .executeTakeFirst();
  },

  async softDelete(db: Db, orgId: string, templateId: string): Promise<TemplateRow | undefined> {
    return db
      .updateTable('templates')
      .set({ deleted_at: sql`now()`, is_default: false, version: sql`version + 1`, updated_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where('id', '=', templateId)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  },
};
