// The organisations section's reads and writes, through the app's one API client. An org's users
// and audit are the lists the dashboard reads (shared/api/resources.ts), its events the events
// page's (lib/api.ts).
import { call } from '../../shared/api/client.ts';
import { invalidate, useQuery } from '../../shared/api/query.ts';
import { useAuditList, useUserList } from '../../shared/api/resources.ts';
import { useApp } from '../../shared/app-context.tsx';
import { useEventList, useStaffList } from '../lib/api.ts';
import { largestPage } from '../../shared/api/field-limits.ts';

export type OrgFilters = Partial<Record<'q' | 'status' | 'state' | 'sort', string>>;

/** The list's `state` filter as the API's boolean filters. */
function stateQuery(state: string | undefined) {
  switch (state) {
    case 'inGrace':
      return { inGrace: 'true' as const };
    case 'blocked':
      return { blocked: 'true' as const };
    case 'overSeatLimit':
      return { overSeatLimit: 'true' as const };
    default:
      return {};
  }
}

export function useOrgList(filters: OrgFilters, cursor: string | undefined) {
  const { api } = useApp();
  const query = {
    limit: 25,
    ...(filters.q ? { q: filters.q } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...stateQuery(filters.state),
    ...(filters.sort ? { sort: filters.sort as 'newest' | 'oldest' | 'name' | '-name' } : {}),
    ...(cursor ? { cursor } : {}),
  };
  return useQuery(['orgs', query], () => call(api.GET('/v1/admin/orgs', { params: { query } })));
}

export function useAdminOrg(orgId: string) {
  const { api } = useApp();
  return useQuery(['orgs', 'one', orgId], () => call(api.GET('/v1/admin/orgs/{orgId}', { params: { path: { orgId } } })));
}

export function useOrgUsers(orgId: string, cursor: string | undefined) {
  return useUserList(orgId, { limit: 20, ...(cursor ? { cursor } : {}) });
}

export function useOrgEvents(orgId: string, cursor: string | undefined) {
  return useEventList({ orgId, limit: 20, ...(cursor ? { cursor } : {}) });
}

export function useOrgAudit(orgId: string, cursor: string | undefined) {
  return useAuditList(orgId, { limit: 20, ...(cursor ? { cursor } : {}) });
}

export interface NewOrg {
  name: string;
  seats: number;
  plan: string;
  ownerEmail: string;
  ownerName?: string;
}

export function useOrgActions() {
  const { api } = useApp();
  return {
    /** Creates an org and invites its owner: the answer carries the org's first API key, once. */
    async create(body: NewOrg) {
      const created = await call(api.POST('/v1/admin/orgs', { body }));
      await invalidate(['orgs']);
      return created;
    },
  };
}

/** A user of the org by id (an audit row's actor or target), under the shared ['users', orgId, userId] key. */
export function useOrgUserById(orgId: string, userId: string | null, enabled: boolean) {
  const { api } = useApp();
  return useQuery(
    ['users', orgId, userId ?? ''],
    () => call(api.GET('/v1/orgs/{orgId}/users/{userId}', { params: { path: { orgId, userId: userId ?? '' } } })),
    { enabled: enabled && !!userId },
  );
}

/** The staff, to name a staff actor. */
export function useStaffNames(): (userId: string) => string | undefined {
  const staff = useStaffList({ limit: largestPage('listStaff') });
  return (id) => staff.data?.items.find((s) => s.userId === id)?.email;
}

export type Overrides = { seatsOverride?: number | null; planOverride?: string | null; trialEndsAt?: string | null; quotaPerMonth?: number | null };

/** Staff overrides (`PATCH /v1/admin/orgs/{orgId}`): each field given is set, `null` clears it. */
export function useOverrideActions(orgId: string) {
  const { api } = useApp();
  return {
    async set(body: Overrides) {
      const saved = await call(api.PATCH('/v1/admin/orgs/{orgId}', { params: { path: { orgId } }, body }));
      await Promise.all([invalidate(['orgs']), invalidate(['audit', orgId])]);
      return saved;
    },
  };
}
