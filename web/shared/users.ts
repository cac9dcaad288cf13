// A user of the signed-in person's org, cached under ['users', orgId, userId] (the users list
// lives under ['users', orgId, 'list', …], so invalidating ['users', orgId] refreshes both).
import { call } from './api/client.ts';
import { useQuery } from './api/query.ts';
import { useOrg } from './app-context.tsx';

export function useUser(userId: string) {
  const { api, orgId } = useOrg();
  return useQuery(['users', orgId, userId], () => call(api.GET('/v1/orgs/{orgId}/users/{userId}', { params: { path: { orgId, userId } } })));
}

export function useOrgResource() {
  const { api, orgId } = useOrg();
  return useQuery(['org', orgId], () => call(api.GET('/v1/orgs/{orgId}', { params: { path: { orgId } } })));
}
