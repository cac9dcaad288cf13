import type { Db } from '../db.ts';

type Payload = Record<string, unknown>;

export const oidcRepo = {
  async upsert(db: Db, model: string, id: string, payload: Payload, expiresInS: number | undefined, now: Date): Promise<void> {
    const expiresAt = expiresInS ? new Date(now.getTime() + expiresInS * 1000) : null;
    const row = {
      model,
      id,
      payload: JSON.stringify(payload),
      grant_id: (payload.grantId as string | undefined) ?? null,
      uid: (payload.uid as string | undefined) ?? null,
      user_code: (payload.userCode as string | undefined) ?? null,
      account_id: (payload.accountId as string | undefined) ?? null,
      expires_at: expiresAt,
    };
    await db
      .insertInto('oidc_payloads')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['model', 'id']).doUpdateSet({
          payload: row.payload,
          grant_id: row.grant_id,
          uid: row.uid,
          user_code: row.user_code,
          account_id: row.account_id,
          expires_at: row.expires_at,
        }),
      )
      .execute();
  },

  async find(db: Db, model: string, where: { id?: string; uid?: string; userCode?: string }, now: Date): Promise<Payload | undefined> {
    let query = db
      .selectFrom('oidc_payloads')
      .select(['payload', 'consumed_at'])
      .where('model', '=', model)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
    if (where.id !== undefined) query = query.where('id', '=', where.id);
    if (where.uid !== undefined) query = query.where('uid', '=', where.uid);
    if (where.userCode !== undefined) query = query.where('user_code', '=', where.userCode);
    const row = await query.executeTakeFirst();
    if (!row) return undefined;
    return row.consumed_at ? { ...row.payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : row.payload;
  },

  async consume(db: Db, model: string, id: string, now: Date): Promise<void> {
    await db.updateTable('oidc_payloads').set({ consumed_at: now }).where('model', '=', model).where('id', '=', id).execute();
  },

  async destroy(db: Db, model: string, id: string): Promise<void> {
    await db.deleteFrom('oidc_payloads').where('model', '=', model).where('id', '=', id).execute();
  },

  async revokeByGrantId(db: Db, grantId: string): Promise<void> {
    await db.deleteFrom('oidc_payloads').where('grant_id', '=', grantId).execute();
  },

  /** Ends every session, grant and token of an account (user deleted, password changed). */
  async revokeAccount(db: Db, accountId: string): Promise<number> {
    const grants = await db
      .selectFrom('oidc_payloads')
      .select('grant_id')
      .distinct()
      .where('account_id', '=', accountId)
      .where('grant_id', 'is not', null)
      .execute();
    const grantIds = grants.map((g) => g.grant_id as string);
    const result = await db
      .deleteFrom('oidc_payloads')
      .where((eb) =>
        eb.or([
          eb('account_id', '=', accountId),
          ...(grantIds.length ? [eb('grant_id', 'in', grantIds)] : []),
          ...(grantIds.length ? [eb.and([eb('model', '=', 'Grant'), eb('id', 'in', grantIds)])] : []),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Ends grants and everything issued under them (codes, access and refresh tokens). */
  async revokeGrants(db: Db, grantIds: string[]): Promise<void> {
    if (grantIds.length === 0) return;
    await db
      .deleteFrom('oidc_payloads')
      .where((eb) => eb.or([eb('grant_id', 'in', grantIds), eb.and([eb('model', '=', 'Grant'), eb('id', 'in', grantIds)])]))
      .execute();
  },

  async purgeExpired(db: Db, now: Date): Promise<number> {
    const result = await db.deleteFrom('oidc_payloads').where('expires_at', '<', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
