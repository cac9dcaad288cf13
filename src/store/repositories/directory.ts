import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { DirectoryRunRow, DirectorySource, PhotoSource, UserRow, UserStatus } from '../schema.ts';

/** The profile fields a directory sets on a user (directory/plan.ts builds its users on them). */
export interface DirectoryProfile {
  email: string;
  name: string;
  title: string;
  department: string;
  phone: string;
  mobile: string;
}

const LOCAL_COLUMNS = ['id', 'email', 'name', 'title', 'department', 'phone', 'mobile', 'role', 'directory_source', 'directory_id', 'status'] as const;

// The users a directory sync reads and writes, and the record of each run. Every function takes the
// org id and filters by it.
export const directoryRepo = {
  /** Every live user of the org, with the directory that linked them. */
  async liveUsers(db: Db, orgId: string) {
    return db.selectFrom('users').select(LOCAL_COLUMNS).where('org_id', '=', orgId).where('deleted_at', 'is', null).orderBy('seq').execute();
  },

  /** Which of these (lower-cased) addresses a live user of another org has. */
  async emailsInOtherOrgs(db: Db, orgId: string, emails: string[]): Promise<Set<string>> {
    const taken = new Set<string>();
    const unique = [...new Set(emails)];
    // Chunked: one statement per 1,000 addresses keeps the parameter list well under PostgreSQL's limit.
    for (let i = 0; i < unique.length; i += 1000) {
      const rows = await db
        .selectFrom('users')
        .select(sql<string>`lower(email)`.as('email'))
        .where('org_id', '<>', orgId)
        .where('deleted_at', 'is', null)
        .where(sql<string>`lower(email)`, 'in', unique.slice(i, i + 1000))
        .execute();
      for (const r of rows) taken.add(r.email);
    }
    return taken;
  },

  /**
   * Sets the profile and the link of a live user (no version check: the directory is the authority
   * for these fields); `active` suspends (false) or restores (true) them (src/users/status.ts).
   */
  async updateUser(
    db: Db,
    orgId: string,
    userId: string,
    patch: Partial<DirectoryProfile> & { source: DirectorySource; externalId: string; active?: boolean | undefined },
  ): Promise<UserRow | undefined> {
    const { source, externalId, active, ...profile } = patch;
    const status =
      active === undefined
        ? {}
        : {
            status: active
              ? sql<UserStatus>`(case when status <> 'suspended' then status when password_hash is null then 'invited' else 'active' end)`
              : sql<UserStatus>`'suspended'`,
          };
    return db
      .updateTable('users')
      .set({ ...profile, ...status, directory_source: source, directory_id: externalId, version: sql`version + 1`, updated_at: sql`now()` })
      .where('org_id', '=', orgId)
      .where('id', '=', userId)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  },

  /**
   * The photo state of the users this directory linked whose photo it may set: live, not suspended,
   * and no person chose their photo (src/directory/photos.ts); least recently asked first.
   */
  async photoStates(db: Db, orgId: string, source: DirectorySource) {
    return db
      .selectFrom('users')
      .select(['id', 'directory_id', 'photo_image_id', 'photo_source', 'directory_photo_etag'])
      .where('org_id', '=', orgId)
      .where('directory_source', '=', source)
      .where('deleted_at', 'is', null)
      .where('status', '<>', 'suspended')
      .where((eb) => eb.or([eb('photo_source', 'is', null), eb('photo_source', '=', 'directory')]))
      .orderBy(sql`directory_photo_checked_at asc nulls first`)
      .orderBy('seq')
      .execute();
  },

  /**
   * Sets (or clears, `imageId` null) the photo a directory gives the user, unless a person chose one
   * meanwhile: undefined then. The user's version moves (their signature changes).
   */
  async setDirectoryPhoto(db: Db, orgId: string, userId: string, photo: { imageId: string | null; etag: string | null; checkedAt: Date }) {
    const source: PhotoSource | null = photo.imageId ? 'directory' : null;
    return db
      .updateTable('users')
      .set({
        photo_image_id: photo.imageId,
        photo_source: source,
        directory_photo_etag: photo.etag,
        directory_photo_checked_at: photo.checkedAt,
        version: sql`version + 1`,
        updated_at: sql`now()`,
      })
      .where('org_id', '=', orgId)
      .where('id', '=', userId)
      .where('deleted_at', 'is', null)
      .where((eb) => eb.or([eb('photo_source', 'is', null), eb('photo_source', '=', 'directory')]))
      .returning(['id', 'version'])
      .executeTakeFirst();
  },

  /** Records that the directory was asked about the user's photo (its mark, when it answered one); the user is unchanged. */
  async markPhotoChecked(db: Db, orgId: string, userId: string, etag: string | null, checkedAt: Date): Promise<void> {
    await db
      .updateTable('users')
      .set({ directory_photo_etag: etag, directory_photo_checked_at: checkedAt })
      .where('org_id', '=', orgId)
      .where('id', '=', userId)
      .execute();
  },

  async insertRun(
    db: Db,
    run: {
      id: string;
      orgId: string;
      source: DirectorySource;
      counts: { created: number; updated: number; deleted: number; skipped: number };
      changes: unknown[];
      startedAt: Date;
    },
  ): Promise<void> {
    await db
      .insertInto('directory_runs')
      .values({
        id: run.id,
        org_id: run.orgId,
        source: run.source,
        ...run.counts,
        changes: JSON.stringify(run.changes),
        started_at: run.startedAt,
        finished_at: sql`now()`,
      })
      .execute();
  },

  async lastRun(db: Db, orgId: string, source: DirectorySource): Promise<DirectoryRunRow | undefined> {
    return db
      .selectFrom('directory_runs')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('source', '=', source)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
  },

  /** Whether another job of this kind and dedupe key is queued for the org (the job queue's table). */
  async queuedTwin(db: Db, kind: string, orgId: string, dedupeKey: string, exceptJobId: string): Promise<boolean> {
    const row = await db
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', kind)
      .where('org_id', '=', orgId)
      .where('dedupe_key', '=', dedupeKey)
      .where('state', '=', 'queued')
      .where('id', '<>', exceptJobId)
      .executeTakeFirst();
    return row !== undefined;
  },
};
