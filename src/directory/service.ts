// Applies a directory's user list to an org: the users a pulled directory lists (Google Workspace,
// Microsoft Entra, through src/directory/sync.ts), or those a pushing one sends (SCIM, with
// `complete: false`, calling `apply` directly); either way the same rules, seat cap and skip
// reasons, and the same record of the run. It plans the changes (plan.ts), then makes each in its
// own transaction with its audit entry, and records the run.
// One transaction per user, not one for the run: a sync of thousands of users never holds the org
// row locked for long, and a sync cut short is finished by the next one (a plan is recomputed from
// what is there, so running it again is harmless).
import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { directoryRepo } from '../store/repositories/directory.ts';
import { usersRepo } from '../store/repositories/users.ts';
import { oidcRepo } from '../store/repositories/oidc.ts';
import { orgsRepo } from '../store/repositories/orgs.ts';
import { scimRepo } from '../store/repositories/scim.ts';
import { isUniqueViolation } from '../store/errors.ts';
import type { DirectorySource } from '../store/schema.ts';
import { AppError } from '../kernel/errors.ts';
import { recordAudit } from '../audit/record.ts';
import type { ReleasePhoto } from '../images/module.ts';
import type { Invalidate } from '../cache/namespaces.ts';
import type { SeatCheck } from '../users/module.ts';
import { planDirectory, type DirectoryUser, type PlannedChange, type SkipReason } from './plan.ts';
import { systemClock } from '../lib/clock.ts';

export type { DirectoryUser, SkipReason } from './plan.ts';

/** One line of a run's record (and of a dry run's answer). */
export interface DirectoryChange {
  action: 'create' | 'update' | 'delete' | 'skip';
  userId: string | null;
  email: string;
  fields?: string[];
  reason?: SkipReason;
}

export interface DirectoryResult {
  created: number;
  updated: number;
  deleted: number;
  skipped: number;
  changes: DirectoryChange[];
  /** The id of the recorded run (null for a dry run, which records nothing). */
  runId: string | null;
}

export interface ApplyOptions {
  orgId: string;
  source: DirectorySource;
  /** Every user the directory lists (suspended ones included): users it linked and no longer lists are deleted. */
  directory: DirectoryUser[];
  /** False when `directory` holds only some of the directory's users (pushed ones): no user is deleted for not being in it. */
  complete?: boolean;
  dryRun: boolean;
  correlationId: string | null;
  /** Called after each change (a job's progress). */
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export function createDirectoryService(deps: {
  db: Db;
  invalidate: Invalidate;
  seatCheck: SeatCheck;
  clock?: () => Date;
  /** Deletes a deleted user's photo when nothing else shows it. */
  releasePhoto?: ReleasePhoto;
}) {
  const { db, invalidate, seatCheck } = deps;
  const clock = deps.clock ?? systemClock;

  async function plan(orgId: string, source: DirectorySource, directory: DirectoryUser[], complete: boolean) {
    const local = await directoryRepo.liveUsers(db, orgId);
    const org = await orgsRepo.find(db, orgId);
    if (!org) throw new AppError('NOT_FOUND', 'Organisation not found.');
    const takenElsewhere = await directoryRepo.emailsInOtherOrgs(
      db,
      orgId,
      directory.map((e) => e.email.trim().toLowerCase()),
    );
    const scimEnabled = source !== 'scim' && (await scimRepo.findToken(db, orgId)) !== undefined;
    const used = local.filter((u) => u.status !== 'suspended').length;
    return planDirectory({ source, directory, local, takenElsewhere, seats: { limit: org.seats, used }, complete, scimEnabled });
  }

  return {
    async apply(options: ApplyOptions): Promise<DirectoryResult> {
      const { orgId, source } = options;
      const startedAt = clock();
      const planned = await plan(orgId, source, options.directory, options.complete ?? true);
      if (options.dryRun) return { ...planned.counts, changes: planned.changes.map(describe), runId: null };

      const actor = { type: 'system' as const, id: `directory:${source}` };
      const ctx = { orgId, correlationId: options.correlationId, actor };
      const done: DirectoryChange[] = [];
      let index = 0;
      for (const change of planned.changes) {
        options.signal?.throwIfAborted();
        done.push(await make(change));
        options.onProgress?.(++index, planned.changes.length);
      }

      async function make(change: PlannedChange): Promise<DirectoryChange> {
        switch (change.action) {
          case 'skip':
            return describe(change);
          case 'create': {
            const { entry } = change;
            try {
              const user = await db.transaction().execute(async (tx) => {
                await seatCheck(tx, orgId);
                const row = await usersRepo.insertFromDirectory(tx, {
                  id: randomUUID(),
                  orgId,
                  source,
                  externalId: entry.externalId,
                  ...profileOf(entry),
                });
                await recordAudit(tx, ctx, { action: 'user.create', targetId: row.id, changes: ['department', 'email', 'mobile', 'name', 'phone', 'title'] });
                return row;
              });
              invalidate.userChanged(orgId, user.id);
              return { action: 'create', userId: user.id, email: user.email };
            } catch (err) {
              // What changed since the plan: the last seat taken, the address taken (by this org or another).
              if (err instanceof AppError && err.code === 'PAYMENT_REQUIRED') return skipped(entry.email, null, 'seat_limit');
              if (isUniqueViolation(err)) return skipped(entry.email, null, await whoHas(entry.email));
              throw err;
            }
          }
          case 'update': {
            const { entry, userId, fields } = change;
            const profile = profileOf(entry);
            const patch = Object.fromEntries(fields.filter((f) => f !== 'directory' && f !== 'status').map((f) => [f, profile[f as keyof typeof profile]]));
            const status = fields.includes('status');
            try {
              const updated = await db.transaction().execute(async (tx) => {
                // Restoring a suspended user takes a seat again (the plan counted; this is the locked check).
                if (status && entry.active) await seatCheck(tx, orgId);
                const row = await directoryRepo.updateUser(tx, orgId, userId, {
                  ...patch,
                  source,
                  externalId: entry.externalId,
                  ...(status ? { active: entry.active } : {}),
                });
                // A suspension ends the user's sessions and refresh tokens.
                if (row && status && !entry.active) await oidcRepo.revokeAccount(tx, userId);
                if (row) await recordAudit(tx, ctx, { action: 'user.update', targetId: userId, changes: [...fields].sort() });
                return row;
              });
              if (!updated) return skipped(entry.email, userId, 'email_in_use');
              invalidate.userChanged(orgId, userId);
              return { action: 'update', userId, email: updated.email, fields: [...fields].sort() };
            } catch (err) {
              if (err instanceof AppError && err.code === 'PAYMENT_REQUIRED') return skipped(entry.email, userId, 'seat_limit');
              if (isUniqueViolation(err)) return skipped(entry.email, userId, await whoHas(entry.email));
              throw err;
            }
          }
          case 'delete': {
            const deleted = await db.transaction().execute(async (tx) => {
              const row = await usersRepo.softDelete(tx, orgId, change.userId);
              if (!row) return undefined;
              await recordAudit(tx, ctx, { action: 'user.delete', targetId: change.userId, changes: ['deletedAt'] });
              await oidcRepo.revokeAccount(tx, change.userId);
              return row;
            });
            if (deleted) invalidate.userChanged(orgId, change.userId);
            // A user gone from the directory takes their photo with them, unless something else shows it.
            if (deleted) await deps.releasePhoto?.(ctx, deleted.photo_image_id);
            return { action: 'delete', userId: change.userId, email: change.email };
          }
        }
      }

      async function whoHas(email: string): Promise<SkipReason> {
        const elsewhere = await directoryRepo.emailsInOtherOrgs(db, orgId, [email.trim().toLowerCase()]);
        return elsewhere.size > 0 ? 'email_in_other_org' : 'email_in_use';
      }

      const counts = { created: 0, updated: 0, deleted: 0, skipped: 0 };
      for (const c of done) counts[({ create: 'created', update: 'updated', delete: 'deleted', skip: 'skipped' } as const)[c.action]]++;
      const runId = randomUUID();
      await directoryRepo.insertRun(db, { id: runId, orgId, source, counts, changes: done, startedAt });
      return { ...counts, changes: done, runId };
    },

    /** The newest recorded run of a directory for the org. */
    async lastRun(orgId: string, source: DirectorySource) {
      return directoryRepo.lastRun(db, orgId, source);
    },
  };
}

export type DirectoryService = ReturnType<typeof createDirectoryService>;

function profileOf(entry: DirectoryUser) {
  return {
    email: entry.email.trim(),
    name: entry.name,
    title: entry.title,
    department: entry.department,
    phone: entry.phone,
    mobile: entry.mobile,
  };
}

function skipped(email: string, userId: string | null, reason: SkipReason): DirectoryChange {
  return { action: 'skip', userId, email, reason };
}

function describe(change: PlannedChange): DirectoryChange {
  switch (change.action) {
    case 'create':
      return { action: 'create', userId: null, email: change.entry.email.trim() };
    case 'update':
      return { action: 'update', userId: change.userId, email: change.entry.email.trim(), fields: [...change.fields].sort() };
    case 'delete':
      return { action: 'delete', userId: change.userId, email: change.email };
    case 'skip':
      return skipped(change.email, change.userId, change.reason);
  }
}
