// The organisations section's reads and writes, through the app's one API client.
import { call } from '../../shared/api/client.ts';
import { useQuery } from '../../shared/api/query.ts';
import { useApp } from '../../shared/app-context.tsx';

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
  const { api } = useApp();
  const query = { limit: 20, ...(cursor ? { cursor } : {}) };
  return useQuery(['org-users', orgId, query], () => call(api.GET('/v1/orgs/{orgId}/users', { params: { path: { orgId }, query } })));
}

export function useOrgEvents(orgId: string, cursor: string | undefined) {
  const { api } = useApp();
  const query = { orgId, limit: 20, ...(cursor ? { cursor } : {}) };
  return useQuery(['events', query], () => call(api.GET('/v1/admin/webhook-events', { params: { query } })));
}

export function useOrgAudit(orgId: string, cursor: string | undefined) {
  const { api } = useApp();
  const query = { limit: 20, ...(cursor ? { cursor } : {}) };
  return useQuery(['org-audit', orgId, query], () => call(api.GET('/v1/orgs/{orgId}/audit', { params: { path: { orgId }, query } })));
}
