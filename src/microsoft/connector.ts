// Microsoft Entra as a directory connector (src/directory/connector.ts): the tenant's users from
// Graph with the app's client credentials (graph.ts), mapped by mapping.ts, synced every
// MICROSOFT_SYNC_INTERVAL_S. Every connection syncs its users (it is all it does).
import type { Db } from '../store/db.ts';
import type { MicrosoftIntegrationRow } from '../store/schema.ts';
import { microsoftRepo } from '../store/repositories/microsoft.ts';
import { sealedContext, type SecretBox } from '../secrets/module.ts';
import type { DirectoryConnector } from '../directory/module.ts';
import type { Credentials, GraphClient, GraphUser } from './graph.ts';
import { toDirectoryUser } from './mapping.ts';

export type MicrosoftConnector = DirectoryConnector<MicrosoftIntegrationRow, GraphUser>;

/** The app's credentials, the secret opened for a call. Sealed under the org's id: a row copied to another org does not open. */
export const credentialsOf = (secrets: SecretBox, row: MicrosoftIntegrationRow): Credentials => ({
  tenantId: row.tenant_id,
  clientId: row.client_id,
  clientSecret: secrets.open(row.sealed_secret, sealedContext('microsoft', row.org_id)),
});

export function microsoftConnector(deps: {
  db: Db;
  secrets: SecretBox;
  graph: Pick<GraphClient, 'userPages' | 'photo'>;
  clock: () => Date;
  syncIntervalS: number;
}): MicrosoftConnector {
  const { db } = deps;
  return {
    source: 'microsoft',
    label: 'Microsoft Graph',
    syncIntervalS: deps.syncIntervalS,
    maxPages: 5000,
    connection: (orgId) => microsoftRepo.find(db, orgId),
    syncsUsers: () => true,
    listUsers: (row, signal) => deps.graph.userPages(credentialsOf(deps.secrets, row), signal),
    toUser: toDirectoryUser,
    claimDue: (tx) => microsoftRepo.claimDue(tx, deps.syncIntervalS),
    recordOutcome: (db, orgId, error) => microsoftRepo.recordOutcome(db, orgId, error, deps.clock()),
    // Graph's listing carries no photo mark: each user's is asked for (metadata, then the bytes only
    // when it changed), the least recently asked first, at most `perRun` a sync.
    photos: {
      perRun: 500,
      concurrency: 4,
      fetch: (row, user, known, signal) => deps.graph.photo(credentialsOf(deps.secrets, row), user.externalId, known, signal),
    },
  };
}
