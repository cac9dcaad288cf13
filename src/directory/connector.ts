// A directory an org can connect to have its users synced (Google Workspace, Microsoft Entra; LDAP
// later): how its users are listed, page by page, and mapped to our fields, how an org's connection
// is found, how often it syncs, and where a run's outcome is recorded. Everything else is shared:
// reading under a page limit (readDirectory below), the sync and its dry run (sync.ts), the job
// kind `<source>.sync` (jobs.ts) and the scheduler (scheduler.ts). The errors a connector throws
// extend errors.ts's ConnectorError, which those read in one place.
//
// A directory that pushes its users instead (SCIM) needs no connector: it calls the apply step
// (service.ts's `apply`, `applyOne`) directly.
import type { Db } from '../store/db.ts';
import type { DirectorySource } from '../store/schema.ts';
import { ConnectorError } from './errors.ts';
import type { DirectoryUser } from './plan.ts';

export interface DirectoryConnector<Connection = unknown, Listed = unknown> {
  /** The directory's name on the users it links (`users.directory_source`) and in its job kind. */
  readonly source: DirectorySource;
  /** How messages to admins name the service ("Google", "Microsoft Graph"). */
  readonly label: string;
  /** Seconds between the scheduled syncs of a connected org. */
  readonly syncIntervalS: number;
  /** Pages read at most: a directory still paging past them is an error, never a partial list. */
  readonly maxPages: number;
  /** The org's connection, if it has one (the caller checks `syncsUsers` where it matters). */
  connection(orgId: string): Promise<Connection | undefined>;
  /** Whether the connection asks for its users to be synced. */
  syncsUsers(connection: Connection): boolean;
  /** Every user the directory lists (suspended ones included), a page at a time; `signal` stops it. */
  listUsers(connection: Connection, signal?: AbortSignal): AsyncIterable<Listed[]>;
  /** A listed user in our fields (an empty email: a user the sync cannot address, left out). */
  toUser(listed: Listed): DirectoryUser;
  /** The orgs whose scheduled sync is due, each moved `syncIntervalS` ahead in the same statement. */
  claimDue(tx: Db): Promise<string[]>;
  /** Records how a sync ended on the connection: null when it succeeded, else the admins' message. */
  recordOutcome(db: Db, orgId: string, error: string | null): Promise<void>;
  /** What follows a sync that succeeded, in the transaction that records it (Google queues a push). */
  afterSync?(tx: Db, orgId: string, connection: Connection): Promise<void>;
  /** The users' photos, where the directory keeps them (photos.ts fetches them after a sync). */
  readonly photos?: DirectoryPhotos<Connection>;
  /**
   * Runs a sync of the org while no other one of it runs; null (the sync not run) when another one
   * is under way. Without it, two syncs of an org may overlap, which the apply step tolerates.
   */
  exclusive?<T>(orgId: string, work: () => Promise<T>): Promise<T | null>;
}

/** A user's photo as the directory answers it; `etag` is the directory's mark of it, kept to ask again only once it changes. */
export type DirectoryPhoto =
  | { state: 'unchanged' }
  | { state: 'none' }
  | { state: 'photo'; etag: string; contentType: string; data: Uint8Array }
  /** Past the size cap, or a type we do not keep: not stored, and not asked for again until it changes. */
  | { state: 'refused'; etag: string; reason: string };

export interface DirectoryPhotos<Connection> {
  /** Users a run asks about at most; the rest wait for the next run (least recently asked first). */
  readonly perRun: number;
  /** Requests under way at once. */
  readonly concurrency: number;
  /**
   * The user's photo, unless its mark is still `known` (then `unchanged`). A listing that carries
   * the mark (DirectoryUser's `photoEtag`) lets photos.ts skip the request altogether.
   */
  fetch(connection: Connection, user: DirectoryUser, known: string | null, signal?: AbortSignal): Promise<DirectoryPhoto>;
}

/** A connector with its own types forgotten, as a list of connectors holds them (`any`: each has its own). */
export type AnyConnector = DirectoryConnector<any, any>;

/**
 * Every user of the directory, mapped. Cut short at the page limit, or empty, the list would be
 * taken as the whole directory and the users past it deleted: both are errors that change nothing.
 * (A directory always lists at least the admin or app that reads it.)
 */
export async function readDirectory<C, L>(connector: DirectoryConnector<C, L>, connection: C, signal?: AbortSignal): Promise<DirectoryUser[]> {
  const users: DirectoryUser[] = [];
  let pages = 0;
  for await (const page of connector.listUsers(connection, signal)) {
    if (++pages > connector.maxPages) {
      throw new ConnectorError(connector.source, 'other', `${connector.label} listed more than ${connector.maxPages} pages of users; nothing was changed.`);
    }
    for (const listed of page) {
      const user = connector.toUser(listed);
      if (user.email !== '') users.push(user);
    }
  }
  if (users.length === 0) throw new ConnectorError(connector.source, 'other', `${connector.label} listed no users at all; nothing was changed.`);
  return users;
}
