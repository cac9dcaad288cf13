import { randomUUID } from 'node:crypto';
import type { Caches } from '../cache/namespaces.ts';
import type { Db } from '../store/db.ts';
import { orgsRepo, type OrgWithUsage } from '../store/repositories/orgs.ts';
import { usersRepo } from '../store/repositories/users.ts';
import { MAX_VERSION, versionMismatch, type VersionCheck } from '../store/conditional.ts';
import { notFound } from '../kernel/errors.ts';
import { recordAudit, changedFields, type WriteContext } from '../audit/record.ts';
import type { ApiKeyService } from '../api-keys/module.ts';
import type { OrgRole } from '../store/schema.ts';
import { scryptHasher, type PasswordHasher } from '../lib/passwords.ts';
import type { Inviter } from '../people/module.ts';
import { conflict } from '../kernel/errors.ts';
import { templatesRepo } from '../store/repositories/templates.ts';
import { isUniqueViolation } from '../store/errors.ts';
import { overridesOf, toOrg, type Org } from './resource.ts';
import { imagesRepo } from '../store/repositories/images.ts';
import { AppError, badRequest } from '../kernel/errors.ts';
import { fitsFieldType, mergeLinks, type SelfServiceField } from '../lib/profile.ts';
import type { CustomField } from '../store/schema.ts';
import { unchangingAnswer } from '../kernel/unchanging.ts';

export interface OrgPatch {
  name?: string | undefined;
  website?: string | undefined;
  address?: string | undefined;
  social?: Record<string, string | null | undefined> | undefined;
  logoImageId?: string | null | undefined;
  selfServiceFields?: SelfServiceField[] | undefined;
  clickTracking?: boolean | undefined;
}

export interface CreatedOrg {
  orgId: string;
  ownerUserId: string;
  apiKey: { keyId: string; key: string };
  /** When the owner was invited (no owner password): the link they accept. */
  ownerInvitationUrl?: string;
}

/** The template a new org starts with as its default (templates/starters.ts's first, passed in by orgs/module.ts). */
export interface FirstTemplate {
  name: string;
  html: string;
  text: string;
  /** The designer's document it was compiled from (templates/starters.ts). */
  design: unknown;
}

export function createOrgService(deps: {
  db: Db;
  caches: Caches;
  apiKeys: ApiKeyService;
  starter: FirstTemplate;
  passwords?: PasswordHasher | undefined;
  invite?: Inviter | undefined;
}) {
  const { db, caches } = deps;
  const passwords = deps.passwords ?? scryptHasher;
  /** The org with its live user count, through the `orgs` cache. */
  const get = (orgId: string): Promise<OrgWithUsage | undefined> => caches.orgs.get(orgId, () => orgsRepo.find(db, orgId));

  // The resource of a cached row, made once per row (GET /v1/orgs/{orgId} runs on every poll of an
  // org: four dates to ISO strings and twenty fields copied each time otherwise). A row is replaced,
  // never changed, when the org changes, so its resource goes with it.
  const resources = new WeakMap<OrgWithUsage, Org>();
  const resourceOf = (org: OrgWithUsage): Org => {
    let resource = resources.get(org);
    if (!resource) {
      // Unchanging (src/kernel/unchanging.ts): its JSON, too, is made once.
      resource = unchangingAnswer(toOrg(org));
      resources.set(org, resource);
    }
    return resource;
  };

  const require = async (orgId: string): Promise<OrgWithUsage> => {
    const org = await get(orgId);
    if (!org) throw notFound('Organisation');
    return org;
  };

  return {
    // The row, for the capabilities that act on an org's settings (render, billing, the integrations).
    get,
    /** The row when the cache holds it, without waiting (the hot paths' synchronous look); undefined otherwise. */
    cached: (orgId: string): OrgWithUsage | undefined => caches.orgs.peek(orgId) ?? undefined,
    require,
    /** The org as the API answers it. */
    /** `staff`: with the staff overrides behind the effective seats and plan. */
    async read(orgId: string, opts: { staff?: boolean } = {}): Promise<Org> {
      const org = await require(orgId);
      return opts.staff ? { ...toOrg(org), overrides: overridesOf(org) } : resourceOf(org);
    },
    async update(ctx: WriteContext, check: VersionCheck, patch: OrgPatch): Promise<Org> {
      const { social, logoImageId, selfServiceFields, clickTracking, ...plain } = patch;
      await db.transaction().execute(async (tx) => {
        // The logo's row is held until this commits: an admin's delete of the image waits, then
        // sees the logo and refuses.
        if (logoImageId && !(await imagesRepo.findLocked(tx, ctx.orgId, logoImageId, 'share'))) {
          throw badRequest("body.logoImageId: not one of the organisation's images (upload one with POST …/images).", { field: 'body.logoImageId' });
        }
        const current = social ? await orgsRepo.find(tx, ctx.orgId) : undefined;
        const updated = await orgsRepo.update(tx, ctx.orgId, check, {
          ...plain,
          // Merged into the row the version check names: a concurrent change makes this a 409.
          ...(social && current ? { social: JSON.stringify(mergeLinks(current.social, social)) } : {}),
          ...(logoImageId !== undefined ? { logo_image_id: logoImageId } : {}),
          ...(selfServiceFields ? { self_service_fields: JSON.stringify(selfServiceFields) } : {}),
          ...(clickTracking !== undefined ? { click_tracking: clickTracking } : {}),
        });
        if (!updated) throw versionMismatch('Organisation', await orgsRepo.find(tx, ctx.orgId), check);
        await recordAudit(tx, ctx, { action: 'org.update', targetId: ctx.orgId, changes: changedFields(patch) });
      });
      caches.invalidate.orgChanged(ctx.orgId);
      const org = await orgsRepo.find(db, ctx.orgId);
      if (!org) throw notFound('Organisation');
      return toOrg(org);
    },

    /** The custom fields and their version (the ETag of `…/fields`). */
    async fields(orgId: string): Promise<{ fields: CustomField[]; version: number }> {
      const org = await require(orgId);
      return { fields: org.fields, version: org.fields_version };
    },

    /**
     * Replaces the custom fields (`If-Match` naming their version, or last write wins). A field
     * that goes takes its values with it, and a field whose type changes the values not of its new
     * type: users keep no value the org's fields would refuse.
     */
    async replaceFields(ctx: WriteContext, fields: CustomField[], ifMatch: number | undefined): Promise<{ fields: CustomField[]; version: number }> {
      // An If-Match naming none of our versions (not a number, past PostgreSQL's integers) matches nothing.
      if (ifMatch !== undefined && !(ifMatch <= MAX_VERSION)) throw new AppError('PRECONDITION_FAILED', 'If-Match does not match the current custom fields.');
      const { row, users } = await db.transaction().execute(async (tx) => {
        const before = await orgsRepo.find(tx, ctx.orgId);
        if (!before) throw notFound('Organisation');
        const row = await orgsRepo.replaceFields(tx, ctx.orgId, fields, ifMatch);
        if (!row) {
          throw new AppError('PRECONDITION_FAILED', 'If-Match does not match the current custom fields.', {
            details: { currentVersion: before.fields_version },
          });
        }
        const users = await dropUnfitValues(tx, ctx.orgId, before.fields, fields);
        await recordAudit(tx, ctx, { action: 'org.fields.update', targetId: ctx.orgId, changes: ['fields'] });
        return { row, users };
      });
      caches.invalidate.orgChanged(ctx.orgId);
      for (const userId of users) caches.invalidate.userChanged(ctx.orgId, userId);
      return { fields: row.fields, version: row.fields_version };
    },

    async create(input: {
      name: string;
      seats: number;
      plan: string;
      ownerEmail: string;
      ownerName?: string | undefined;
      ownerPassword?: string | undefined;
      correlationId: string;
      /** Who creates it: the CLI (the default), or a staff member through the staff API. */
      actor?: { type: 'system' | 'staff'; id: string } | undefined;
    }): Promise<CreatedOrg> {
      const orgId = randomUUID();
      const ownerUserId = randomUUID();
      const passwordHash = input.ownerPassword ? await passwords.hash(input.ownerPassword) : null;
      const role: OrgRole = 'owner';
      const created = await db
        .transaction()
        .execute(async (tx) => {
          await orgsRepo.insert(tx, { id: orgId, name: input.name, seats: input.seats, plan: input.plan });
          const owner = await usersRepo.insert(tx, {
            id: ownerUserId,
            org_id: orgId,
            email: input.ownerEmail,
            name: input.ownerName ?? '',
            role,
            password_hash: passwordHash,
            status: passwordHash ? 'active' : 'invited',
          });
          // Without a password the owner is invited, like any user created without one.
          const invitation = passwordHash || !deps.invite ? undefined : await deps.invite(tx, owner);
          const ctx = { orgId, correlationId: input.correlationId, actor: input.actor ?? { type: 'system' as const, id: 'cli' } };
          await recordAudit(tx, ctx, { action: 'org.create', targetId: orgId, changes: ['name', 'plan', 'seats'] });
          await recordAudit(tx, ctx, { action: 'user.create', targetId: ownerUserId, changes: ['email', 'role'] });
          // A first signature that works: the starter template is the new org's default.
          const template = await templatesRepo.insert(tx, {
            id: randomUUID(),
            org_id: orgId,
            name: deps.starter.name,
            html: deps.starter.html,
            text: deps.starter.text,
            html_prepared: deps.starter.html,
            design: JSON.stringify(deps.starter.design),
            source: 'design',
            is_default: true,
          });
          await recordAudit(tx, ctx, { action: 'template.create', targetId: template.id, changes: ['design', 'html', 'isDefault', 'name', 'text'] });
          const { keyId, key } = await deps.apiKeys.mint(
            { orgId, correlationId: input.correlationId, principal: { kind: 'user', userId: ownerUserId, orgId, role } },
            { name: 'first key' },
            tx,
          );
          return { apiKey: { keyId, key }, invitation };
        })
        .catch((err: unknown) => {
          if (isUniqueViolation(err, 'users_email_live')) {
            throw conflict(`The email address ${input.ownerEmail} already belongs to a user of another organisation.`, { field: 'ownerEmail' });
          }
          throw err;
        });
      return {
        orgId,
        ownerUserId,
        apiKey: created.apiKey,
        ...(created.invitation ? { ownerInvitationUrl: created.invitation.url } : {}),
      };
    },
  };
}

export type OrgService = ReturnType<typeof createOrgService>;

/** How many users one statement changes at most: a bound on its parameters. */
const DROP_BATCH = 1000;

/**
 * Drops the custom values the new fields would refuse (docs/api.md, "Profiles": a value is of a
 * field the org defined, of its type): every value of a field that went, and the values of a field
 * whose type changed that are not of the new type (a desk number in what is now a URL field), as
 * a value set through the API would be refused. The ids of the users changed.
 */
async function dropUnfitValues(tx: Db, orgId: string, before: CustomField[], after: CustomField[]): Promise<string[]> {
  const now = new Map(after.map((f) => [f.key, f]));
  const gone = before.filter((f) => !now.has(f.key)).map((f) => f.key);
  const changed = new Set(await orgsRepo.dropAttributes(tx, orgId, gone));
  const retyped = before.flatMap((f) => {
    const next = now.get(f.key);
    return next && next.type !== f.type ? [next] : [];
  });
  // Users grouped by the keys they lose, so each group is one statement.
  const byKeys = new Map<string, string[]>();
  for (const user of await orgsRepo.withAttributes(
    tx,
    orgId,
    retyped.map((f) => f.key),
  )) {
    const unfit = retyped.filter((f) => {
      const value = user.attributes[f.key];
      return value !== undefined && !fitsFieldType(f.type, value);
    });
    if (unfit.length === 0) continue;
    const keys = unfit.map((f) => f.key).join(',');
    const group = byKeys.get(keys) ?? [];
    group.push(user.id);
    byKeys.set(keys, group);
  }
  for (const [keys, ids] of byKeys) {
    for (let i = 0; i < ids.length; i += DROP_BATCH) {
      for (const id of await orgsRepo.dropAttributes(tx, orgId, keys.split(','), ids.slice(i, i + DROP_BATCH))) changed.add(id);
    }
  }
  return [...changed];
}
