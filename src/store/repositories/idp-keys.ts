import type { Db } from '../db.ts';

export interface KeyRow {
  kid: string;
  use: 'signing' | 'cookie';
  material: Record<string, unknown>;
  created_at: Date;
  retired_at: Date | null;
}

export const idpKeysRepo = {
  async all(db: Db): Promise<KeyRow[]> {
    return db.selectFrom('idp_keys').selectAll().orderBy('created_at', 'desc').execute();
  },
  async insert(db: Db, key: { kid: string; use: 'signing' | 'cookie'; material: Record<string, unknown> }, now: Date): Promise<void> {
    await db
      .insertInto('idp_keys')
      .values({ ...key, material: JSON.stringify(key.material), created_at: now })
      .execute();
  },
  /** Retires every active key of a use except one. */
  async retireOthers(db: Db, use: 'signing' | 'cookie', keepKid: string, now: Date): Promise<void> {
    await db.updateTable('idp_keys').set({ retired_at: now }).where('use', '=', use).where('kid', '!=', keepKid).where('retired_at', 'is', null).execute();
  },
  /** Forgets keys retired longer ago than any token they signed can live. */
  async deleteRetiredBefore(db: Db, before: Date): Promise<void> {
    await db.deleteFrom('idp_keys').where('retired_at', '<', before).execute();
  },
};
