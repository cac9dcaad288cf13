// Google Workspace as a directory connector (src/directory/connector.ts): the Directory API's users,
// read as the connection's admin, 500 a page; mapped by mapping.ts. A sync holds the org's sync
// lease (lease.ts), and one that succeeds queues the push of every signature when the connection
// pushes them.
import type { Db } from '../store/db.ts';
import type { GoogleIntegrationRow } from '../store/schema.ts';
import { googleRepo } from '../store/repositories/google.ts';
import type { SecretBox } from '../secrets/module.ts';
import type { DirectoryConnector, DirectoryPhotos } from '../directory/module.ts';
import { IMAGE_MAX_BYTES } from '../images/module.ts';
import type { GoogleClient, GoogleUser } from './client.ts';
import { credentialsOf } from './credentials.ts';
import { toDirectoryUser } from './mapping.ts';
import type { GoogleLease } from './lease.ts';
import { JOB_KINDS, type Enqueue } from './kinds.ts';

export type GoogleConnector = DirectoryConnector<GoogleIntegrationRow, GoogleUser>;

/** The users of a Workspace, a page at a time, read as `adminEmail` (the credentials opened when the first page is asked for). */
export async function* googleUserPages(
  client: Pick<GoogleClient, 'listUsers'>,
  row: GoogleIntegrationRow,
  secrets: SecretBox,
  signal?: AbortSignal,
): AsyncGenerator<GoogleUser[]> {
  const creds = credentialsOf(secrets, row);
  let pageToken: string | undefined;
  do {
    const page = await client.listUsers(creds, row.admin_email, pageToken, signal);
    pageToken = page.nextPageToken;
    yield page.users;
  } while (pageToken);
}

export function googleConnector(deps: {
  db: Db;
  secrets: SecretBox;
  client: Pick<GoogleClient, 'listUsers' | 'getPhoto'>;
  enqueue: Enqueue;
  lease: GoogleLease;
  syncIntervalS: number;
}): GoogleConnector {
  const { db } = deps;
  return {
    source: 'google',
    label: 'Google',
    syncIntervalS: deps.syncIntervalS,
    maxPages: 2000,
    connection: (orgId) => googleRepo.find(db, orgId),
    syncsUsers: (row) => row.sync_users,
    listUsers: (row, signal) => googleUserPages(deps.client, row, deps.secrets, signal),
    toUser: toDirectoryUser,
    claimDue: (tx) => googleRepo.claimDueSyncs(tx, deps.syncIntervalS),
    recordOutcome: (db, orgId, error) => googleRepo.recordOutcome(db, orgId, 'sync', error),
    async afterSync(tx, orgId, row) {
      if (row.push_signatures) await deps.enqueue(tx, { kind: JOB_KINDS.push, orgId, dedupeKey: 'push' });
    },
    exclusive: (orgId, work) => deps.lease.exclusively(orgId, 'sync', work),
    photos: googlePhotos(deps),
  };
}

/**
 * Users' photos through users.photos.get, read as the connection's admin. The listing carries each
 * photo's etag, so only new or changed photos are asked for; none is read past the image size cap.
 */
function googlePhotos(deps: { secrets: SecretBox; client: Pick<GoogleClient, 'getPhoto'> }): DirectoryPhotos<GoogleIntegrationRow> {
  return {
    perRun: 500,
    concurrency: 4,
    async fetch(row, user, known, signal) {
      if (user.photoEtag === null) return { state: 'none' };
      if (user.photoEtag !== undefined && user.photoEtag === known) return { state: 'unchanged' };
      const photo = await deps.client.getPhoto(credentialsOf(deps.secrets, row), row.admin_email, user.externalId, signal);
      if (!photo?.photoData) return { state: 'none' };
      const etag = user.photoEtag ?? photo.etag ?? '';
      // Web-safe base64: four characters to three bytes.
      if (Math.floor((photo.photoData.length * 3) / 4) > IMAGE_MAX_BYTES + 2) return { state: 'refused', etag, reason: 'larger than 1 MB' };
      return { state: 'photo', etag, contentType: (photo.mimeType ?? '').toLowerCase(), data: Buffer.from(photo.photoData, 'base64url') };
    },
  };
}
