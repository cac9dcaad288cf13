// The users feature's reads and writes. The list with its search and filters (docs/api.md,
// "Search and filters": q matches name and email; role, department, status), one page at a time; adding,
// editing, removing, re-inviting and importing people, each followed by a refresh of what a
// change of people moves: the lists, the org's seat count and its plan status.
import { call } from '../../shared/api/client.ts';
import { invalidate, useQuery } from '../../shared/api/query.ts';
import { useUserList } from '../../shared/api/resources.ts';
import { largestPage } from '../../shared/api/field-limits.ts';
import { useOrg } from '../../shared/app-context.tsx';
import type { operations, Role, User } from '../../shared/api/types.ts';

export interface UserFilters {
  q: string;
  role: Role | '';
  department: string;
  status: 'invited' | 'active' | 'suspended' | '';
  /** A group's id (groups come from SCIM: docs/scim.md). */
  group: string;
}

export const NO_FILTERS: UserFilters = { q: '', role: '', department: '', status: '', group: '' };
export const PAGE_SIZE = 25;

/** The list's orders (the service sorts): a column, `-` first for descending. */
export type UserSort = NonNullable<NonNullable<operations['listUsers']['parameters']['query']>['sort']>;

/** What a person may set on a user (the add and edit form). */
export type UserFields = Pick<User, 'email' | 'name' | 'title' | 'department' | 'phone' | 'mobile' | 'role'>;

export function useUsers(filters: UserFilters, cursor: string | undefined, sort: UserSort) {
  const { orgId } = useOrg();
  return useUserList(orgId, {
    limit: PAGE_SIZE,
    sort,
    ...(cursor ? { cursor } : {}),
    ...(filters.q.trim() ? { q: filters.q.trim() } : {}),
    ...(filters.role ? { role: filters.role } : {}),
    ...(filters.department.trim() ? { department: filters.department.trim() } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.group ? { group: filters.group } : {}),
  });
}

/** The org's groups (pushed by SCIM), for the group filter: the largest page, oldest first. */
export function useGroups() {
  const { api, orgId } = useOrg();
  return useQuery(['groups', orgId], () =>
    call(api.GET('/v1/orgs/{orgId}/groups', { params: { path: { orgId }, query: { limit: largestPage('listGroups') } } })),
  );
}

/** A change of people moves the lists, the seats used and perhaps the seat cap's block. */
async function refreshPeople(orgId: string) {
  await Promise.all([invalidate(['users', orgId]), invalidate(['org', orgId]), invalidate(['plan-status', orgId])]);
}

export function useUserActions() {
  const { api, orgId } = useOrg();
  return {
    /** Invites a new user; `invitationUrl` is set when the stage sends no mail. */
    async create(values: UserFields) {
      const created = await call(api.POST('/v1/orgs/{orgId}/users', { params: { path: { orgId } }, body: values }));
      await refreshPeople(orgId);
      return created;
    },
    /** Saves the fields that differ from `user`, against the version read. */
    async update(user: User, changed: Partial<UserFields>) {
      const saved = await call(
        api.PATCH('/v1/orgs/{orgId}/users/{userId}', { params: { path: { orgId, userId: user.userId } }, body: { version: user.version, ...changed } }),
      );
      await refreshPeople(orgId);
      return saved;
    },
    /** Suspends (no sign-in, seat or signature) or restores a user (402 when every seat is taken). */
    async setStatus(user: User, status: 'active' | 'suspended') {
      const saved = await call(
        api.PATCH('/v1/orgs/{orgId}/users/{userId}', { params: { path: { orgId, userId: user.userId } }, body: { version: user.version, status } }),
      );
      await refreshPeople(orgId);
      return saved;
    },
    async remove(user: User) {
      await call(api.DELETE('/v1/orgs/{orgId}/users/{userId}', { params: { path: { orgId, userId: user.userId } } }));
      await refreshPeople(orgId);
    },
    async resendInvitation(user: User) {
      const answer = await call(api.POST('/v1/orgs/{orgId}/users/{userId}/invitation', { params: { path: { orgId, userId: user.userId } } }));
      await invalidate(['users', orgId]);
      return answer;
    },
    /** Imports a CSV file's text: one result per row. */
    async importCsv(csv: string) {
      const answer = await call(
        api.POST('/v1/orgs/{orgId}/users/import', {
          params: { path: { orgId } },
          body: csv,
          bodySerializer: (b: unknown) => b as string,
          headers: { 'content-type': 'text/csv' },
        }),
      );
      await refreshPeople(orgId);
      return answer.results;
    },
  };
}

/** Any user's signature as the service renders it for them (`GET …/users/{userId}/signature`, a preview: counted nowhere; admins). */
export function useUserSignature(userId: string) {
  const { api, orgId } = useOrg();
  return useQuery(['signature', orgId, userId], () =>
    call(api.GET('/v1/orgs/{orgId}/users/{userId}/signature', { params: { path: { orgId, userId }, query: { preview: 'true' } } })),
  );
}
