// What staff do with orgs (docs/api.md, "Staff"): search every org, read one with its billing
// fields, create one as the CLI's `org create` does (the same OrgService.create, so the two cannot
// drift), with the staff member as the actor of its audit entries.
import type { Db } from '../store/db.ts';
import { orgsRepo, type StaffOverrides } from '../store/repositories/orgs.ts';
import { changedFields, recordAudit } from '../audit/record.ts';
import type { Invalidate } from '../cache/namespaces.ts';
import { orgSearchRepo, type OrgPosition, type OrgSort } from '../store/repositories/org-search.ts';
import { badRequest, notFound } from '../kernel/errors.ts';
import { decodeCursor, decodeKeyedCursor, encodeCursor, encodeKeyedCursor, type KeyedPosition, type Page, type PageRequest } from '../store/pagination.ts';
import { GRACE_STATUSES } from '../billing/module.ts';
import type { OrgService } from '../orgs/module.ts';
import type { StaffContext } from './staff-admin.ts';
import { toAdminOrg, type AdminOrg } from './resource.ts';

export interface OrgQuery {
  q?: string | undefined;
  status?: string | undefined;
  blocked?: boolean | undefined;
  inGrace?: boolean | undefined;
  overSeatLimit?: boolean | undefined;
  sort: OrgSort;
}

const byName = (sort: OrgSort) => sort === 'name' || sort === '-name';

const nameOf = (p: KeyedPosition | undefined): OrgPosition | undefined => p && { name: p.key, seq: p.seq };

export interface OverridesPatch {
  seatsOverride?: number | null | undefined;
  planOverride?: string | null | undefined;
  trialEndsAt?: string | null | undefined;
  quotaPerMonth?: number | null | undefined;
}

export function createOrgAdminService(deps: {
  db: Db;
  orgs: OrgService;
  clock: () => Date;
  mailConfigured: boolean;
  invalidate: Invalidate;
  /** Told of a new own quota, so this instance applies it at once (others within their settings' lifetime). */
  quotaChanged: (orgId: string) => void;
}) {
  const { db } = deps;
  return {
    async search(query: OrgQuery, page: PageRequest): Promise<Page<AdminOrg>> {
      const after =
        page.cursor === undefined ? undefined : byName(query.sort) ? nameOf(decodeKeyedCursor(page.cursor)) : { seq: decodeCursor(page.cursor) as string };
      const now = deps.clock();
      const rows = await orgSearchRepo.search(db, { ...query, graceStatuses: [...GRACE_STATUSES], now }, query.sort, after, page.limit);
      const more = rows.length > page.limit;
      const items = more ? rows.slice(0, page.limit) : rows;
      const last = items.at(-1);
      const nextCursor =
        more && last
          ? byName(query.sort)
            ? encodeKeyedCursor({ key: last.name.toLowerCase(), seq: String(last.seq) })
            : encodeCursor(String(last.seq))
          : null;
      return { items: items.map((o) => toAdminOrg(o, now)), nextCursor };
    },

    /** One org as it stands in the database (not the API's cache: staff look at it to act on it). */
    async get(orgId: string): Promise<AdminOrg> {
      const org = await orgsRepo.find(db, orgId);
      if (!org) throw notFound('Organisation');
      return toAdminOrg(org, deps.clock());
    },

    /**
     * Staff overrides (DECISIONS wave 3): each field given is set (null clears it), with one staff
     * audit entry naming the fields. No version: a staff setting, not an edit of the org's data.
     */
    async setOverrides(ctx: StaffContext, orgId: string, patch: OverridesPatch): Promise<AdminOrg> {
      if (Object.values(patch).every((v) => v === undefined)) throw badRequest('Name at least one of seatsOverride, planOverride, trialEndsAt, quotaPerMonth.');
      const overrides: StaffOverrides = {
        seats_override: patch.seatsOverride,
        plan_override: patch.planOverride,
        trial_ends_at: patch.trialEndsAt === undefined ? undefined : patch.trialEndsAt === null ? null : new Date(patch.trialEndsAt),
        quota_per_month: patch.quotaPerMonth,
      };
      await db.transaction().execute(async (tx) => {
        if (!(await orgsRepo.setOverrides(tx, orgId, overrides))) throw notFound('Organisation');
        await recordAudit(
          tx,
          { orgId, correlationId: ctx.correlationId, actor: { type: 'staff', id: ctx.staffId } },
          {
            action: 'org.overrides',
            targetId: orgId,
            changes: changedFields(patch),
          },
        );
      });
      deps.invalidate.orgChanged(orgId);
      if (patch.quotaPerMonth !== undefined) deps.quotaChanged(orgId);
      return this.get(orgId);
    },

    /**
     * The owner is invited in the creating transaction. With mail configured the link goes only to
     * the owner's mailbox; without, the answer carries it for the staff member to hand over.
     */
    async create(ctx: StaffContext, input: { name: string; seats: number; plan: string; ownerEmail: string; ownerName?: string | undefined }) {
      const { ownerInvitationUrl, ...created } = await deps.orgs.create({
        ...input,
        correlationId: ctx.correlationId,
        actor: { type: 'staff', id: ctx.staffId },
      });
      return { ...created, ...(ownerInvitationUrl && !deps.mailConfigured ? { ownerInvitationUrl } : {}) };
    },
  };
}

export type OrgAdminService = ReturnType<typeof createOrgAdminService>;
