import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { ApiKeyRow } from '../schema.ts';

export const apiKeysRepo = {
  async insert(db: Db, key: { id: string; org_id: string; name: string; prefix: string; key_hash: string }): Promise<ApiKeyRow> {
    return db.insertInto('api_keys').values(key).returningAll().executeTakeFirstOrThrow();
  },

  /** The one indexed lookup of verification (unique index on key_hash). */
  async findByHash(db: Db, keyHash: string): Promise<Pick<ApiKeyRow, 'id' | 'org_id' | 'revoked_at'> | undefined> {
    return db.selectFrom('api_keys').select(['id', 'org_id', 'revoked_at']).where('key_hash', '=', keyHash).executeTakeFirst();
  },

  async find(db: Db, orgId: string, keyId: string): Promise<ApiKeyRow | undefined> {
    return db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).where('id', '=', keyId).executeTakeFirst();
  },

  async list(db: Db, orgId: string, after: string | undefined, limit: number): Promise<ApiKeyRow[]> {
    let query = db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId);
    if (after !== undefined) query = query.where('seq', '>', after);
    return query
      .orderBy('seq')
      .limit(limit + 1)
      .execute();
  },

  /** Revokes once; a second revocation finds the key already revoked and changes nothing. */
  async revoke(db: Db, orgId: string, keyId: string): Promise<ApiKeyRow | undefined> {
    return db
      .updateTable('api_keys')
      .set({ revoked_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where('id', '=', keyId)
      .where('revoked_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  },

  /** Records uses in one statement; never moves lastUsedAt backwards. */
  async touch(db: Db, uses: { keyId: string; at: Date }[]): Promise<void> {
    if (uses.length === 0) return;
    const ids = uses.map((u) => u.keyId);
    const times = uses.map((u) => u.at.toISOString());
    await sql`
      update api_keys as k set last_used_at = greatest(k.last_used_at, u.at)
      from (select unnest(${ids}::uuid[]) as id, unnest(${times}::timestamptz[]) as at) as u
      where k.id = u.id`.execute(db);
  },
};
