// The organisations section's reads and writes, through the app's one API client. An org's users
// and audit are the lists the dashboard reads (shared/api/resources.ts), its events the events
// page's (lib/api.ts).
import { call } from '../../shared/api/client.ts';
import { invalidate, useQuery } from '../../shared/api/query.ts';
import { useAuditList, useUserList } from '../../shared/api/resources.ts';
import { useApp } from '../../shared/app-context.tsx';
import { useEventList } from '../lib/api.ts';

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
