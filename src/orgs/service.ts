import { randomUUID } from 'node:crypto';
import type { Caches } from '../cache/namespaces.ts';
import type { Db } from '../store/db.ts';
import { orgsRepo, type OrgWithUsage } from '../store/repositories/orgs.ts';
import { usersRepo } from '../store/repositories/users.ts';
import { versionMismatch, type VersionCheck } from '../store/conditional.ts';
import { notFound } from '../errors.ts';
import { recordAudit, changedFields, type WriteContext } from '../audit/record.ts';
import type { ApiKeyService } from '../api-keys/service.ts';
import type { OrgRole } from '../store/schema.ts';
import { hashPassword } from '../auth/passwords.ts';

export function createOrgService(deps: { db: Db; caches: Caches; apiKeys: ApiKeyService }) {
  const { db, caches } = deps;
  /** The org with its live user count, through the `orgs` cache. */
  const get = (orgId: string): Promise<OrgWithUsage | undefined> => caches.orgs.get(orgId, () => orgsRepo.find(db, orgId));

  return {
    get,
    async require(orgId: string): Promise<OrgWithUsage> {
      const org = await get(orgId);
      if (!org) throw notFound('Organisation');
      return org;
    },
    async update(ctx: WriteContext, check: VersionCheck, patch: { name?: string | undefined }): Promise<OrgWithUsage> {
      await db.transaction().execute(async (tx) => {
        const updated = await orgsRepo.update(tx, ctx.orgId, check, patch);
        if (!updated) throw versionMismatch('Organisation', await orgsRepo.find(tx, ctx.orgId), check);
        await recordAudit(tx, ctx, { action: 'org.update', targetId: ctx.orgId, changes: changedFields(patch) });
      });
      caches.invalidate.orgChanged(ctx.orgId);
      const org = await orgsRepo.find(db, ctx.orgId);
      if (!org) throw notFound('Organisation');
      return org;
    },

    async create(input: {
      name: string;
      seats: number;
      plan: string;
      ownerEmail: string;
      ownerName?: string | undefined;
      ownerPassword?: string | undefined;
      correlationId: string;
    }): Promise<{ orgId: string; ownerUserId: string; apiKey: { keyId: string; key: string } }> {
      const orgId = randomUUID();
      const ownerUserId = randomUUID();
      const passwordHash = input.ownerPassword ? await hashPassword(input.ownerPassword) : null;
      const role: OrgRole = 'owner';
      const apiKey = await db.transaction().execute(async (tx) => {
        await orgsRepo.insert(tx, { id: orgId, name: input.name, seats: input.seats, plan: input.plan });
        await usersRepo.insert(tx, {
          id: ownerUserId,
          org_id: orgId,
          email: input.ownerEmail,
          name: input.ownerName ?? '',
          role,
          password_hash: passwordHash,
        });
        const ctx = { orgId, correlationId: input.correlationId, actor: { type: 'system' as const, id: 'cli' } };
        await recordAudit(tx, ctx, { action: 'org.create', targetId: orgId, changes: ['name', 'plan', 'seats'] });
        await recordAudit(tx, ctx, { action: 'user.create', targetId: ownerUserId, changes: ['email', 'role'] });
        const { row, key } = await deps.apiKeys.mint(
          { orgId, correlationId: input.correlationId, principal: { kind: 'user', userId: ownerUserId, orgId, role } },
          { name: 'first key' },
          tx,
        );
        return { keyId: row.id, key };
      });
      return { orgId, ownerUserId, apiKey };
    },
  };
}

export type OrgService = ReturnType<typeof createOrgService>;
