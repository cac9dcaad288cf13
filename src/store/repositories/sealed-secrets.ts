import { sql } from 'kysely';
import type { Db } from '../db.ts';

/**
 * Every column that holds a value sealed with SECRETS_KEY (src/secrets/), one row per org. A new
 * sealed column belongs here, or `sigsvc secrets rekey` leaves it under the old key
 * (test/secrets-rekey.test.ts compares this list with the migrations).
 */
export const SEALED_COLUMNS = {
  google: { table: 'google_integrations', column: 'sealed_private_key', what: "Google Workspace service account's private key" },
  microsoft: { table: 'microsoft_integrations', column: 'sealed_secret', what: 'Microsoft Entra client secret' },
  outlook: { table: 'outlook_addins', column: 'key_sealed', what: 'Outlook add-in key' },
  webhook: { table: 'outbound_endpoints', column: 'sealed_secrets', what: 'outbound webhook endpoint signing secrets' },
} as const;

export type SealedKind = keyof typeof SEALED_COLUMNS;

// The sealed values across orgs, for the operator's re-sealing under a new key: the one place that
// reads every org's secrets, on purpose.
export const sealedSecretsRepo = {
  async list(db: Db, kind: SealedKind): Promise<{ orgId: string; sealed: string }[]> {
    const { table, column } = SEALED_COLUMNS[kind];
    const rows = await db
      .selectFrom(table)
      .select(['org_id', sql<string>`${sql.ref(column)}`.as('sealed')])
      .orderBy('org_id')
      .execute();
    return rows.map((r) => ({ orgId: r.org_id, sealed: r.sealed }));
  },

  /** Replaces the value only if it is still `from` (the service may have stored a new one meanwhile). */
  async replace(db: Db, kind: SealedKind, orgId: string, from: string, to: string): Promise<boolean> {
    const { table, column } = SEALED_COLUMNS[kind];
    const result = await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${to} where org_id = ${orgId} and ${sql.ref(column)} = ${from}`.execute(db);
    return Number(result.numAffectedRows ?? 0) === 1;
  },
};
