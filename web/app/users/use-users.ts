// The users list with its search and filters (docs/api.md, "Search and filters": q matches name and
// email; role, department, status), one page at a time.
import { call } from '../../shared/api/client.ts';
import { useQuery } from '../../shared/api/query.ts';
import { useOrg } from '../../shared/app-context.tsx';
import type { operations, Role } from '../../shared/api/types.ts';

export interface UserFilters {
  q: string;
  role: Role | '';
  department: string;
  status: 'invited' | 'active' | '';
}

export const NO_FILTERS: UserFilters = { q: '', role: '', department: '', status: '' };
export const PAGE_SIZE = 25;

/** The list's orders (the service sorts): a column, `-` first for descending. */
export type UserSort = NonNullable<NonNullable<operations['listUsers']['parameters']['query']>['sort']>;

export function useUsers(filters: UserFilters, cursor: string | undefined, sort: UserSort) {
  const { api, orgId } = useOrg();
  const query = {
    limit: PAGE_SIZE,
    sort,
    ...(cursor ? { cursor } : {}),
    ...(filters.q.trim() ? { q: filters.q.trim() } : {}),
    ...(filters.role ? { role: filters.role } : {}),
    ...(filters.department.trim() ? { department: filters.department.trim() } : {}),
    ...(filters.status ? { status: filters.status } : {}),
  };
  return useQuery(['users', orgId, 'list', query], () => call(api.GET('/v1/orgs/{orgId}/users', { params: { path: { orgId }, query } })));
}
