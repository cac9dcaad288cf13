// One-time links (invitations, password resets): only the token's hash is stored. A link is live
// while unused, not void and not expired; using it is one conditional update, so two tabs (or two
// instances) submitting the same link cannot both succeed.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { AccountTokenRow, TokenPurpose } from '../schema.ts';

export interface NewAccountToken {
  purpose: TokenPurpose;
  accountKind: 'user' | 'staff';
  accountId: string;
  orgId: string | null;
  email: string;
  tokenHash: string;
  linkToken: string | null;
  ttlS: number;
}

export const accountTokensRepo = {
  async insert(db: Db, t: NewAccountToken): Promise<AccountTokenRow> {
    return db
      .insertInto('account_tokens')
      .values({
        id: randomUUID(),
        purpose: t.purpose,
        account_kind: t.accountKind,
        account_id: t.accountId,
        org_id: t.orgId,
        email: t.email,
        token_hash: t.tokenHash,
        link_token: t.linkToken,
        expires_at: sql<Date>`now() + ${t.ttlS}::double precision * interval '1 second'`,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  async findByHash(db: Db, tokenHash: string): Promise<AccountTokenRow | undefined> {
    return db.selectFrom('account_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  },

  /** Marks a live link used; undefined when it was not live (used, void, expired) any more. */
  async use(db: Db, id: string): Promise<AccountTokenRow | undefined> {
    return db
      .updateTable('account_tokens')
      .set({ used_at: sql`now()`, link_token: null })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .where('voided_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .returningAll()
      .executeTakeFirst();
  },

  /** Voids an account's live links of one purpose (a new invitation, a finished reset). */
  async voidLive(db: Db, accountId: string, purpose: TokenPurpose): Promise<number> {
    const r = await db
      .updateTable('account_tokens')
      .set({ voided_at: sql`now()`, link_token: null })
      .where('account_id', '=', accountId)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('voided_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  },

  /** Links of a purpose made for an account within the last `windowS` seconds (the per-address limit). */
  async countRecent(db: Db, accountId: string, purpose: TokenPurpose, windowS: number): Promise<number> {
    const r = await db
      .selectFrom('account_tokens')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('account_id', '=', accountId)
      .where('purpose', '=', purpose)
      .where('created_at', '>', sql<Date>`now() - ${windowS}::double precision * interval '1 second'`)
      .executeTakeFirstOrThrow();
    return r.n;
  },

  /** The live invitation links an admin may hand over (kept only without SMTP_URL), by account. */
  async liveInvitationLinks(db: Db, orgId: string, accountIds: string[]): Promise<Map<string, string>> {
    if (accountIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('account_tokens')
      .select(['account_id', 'link_token'])
      .where('org_id', '=', orgId)
      .where('account_id', 'in', accountIds)
      .where('purpose', '=', 'invitation')
      .where('link_token', 'is not', null)
      .where('used_at', 'is', null)
      .where('voided_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .execute();
    return new Map(rows.map((r) => [r.account_id, r.link_token as string]));
  },
};
