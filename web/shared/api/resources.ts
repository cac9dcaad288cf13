// The reads more than one feature makes (a user, the org, its plan status, and the lists that
// several pages show: users, API keys, images, templates, deployments, the audit log), each under
// one query key, so pages that show the same thing share it and one invalidation refreshes them
// all. Features reach them through their own hooks module (`<feature>/api.ts`); the org id is
// passed in, because the staff app reads any org's lists.
import { call } from './client.ts';
import { useQuery } from './query.ts';
import { largestPage } from './field-limits.ts';
import { useApp } from '../app-context.tsx';
import type { operations } from './types.ts';

/** The query parameters of an operation of the OpenAPI document. */
export type QueryOf<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

/** A user, under ['users', orgId, userId] (the lists live under ['users', orgId, 'list', …]). */
export function useUser(orgId: string, userId: string) {
  const { api } = useApp();
  return useQuery(['users', orgId, userId], () => call(api.GET('/v1/orgs/{orgId}/users/{userId}', { params: { path: { orgId, userId } } })));
}

export function useOrgResource(orgId: string) {
  const { api } = useApp();
  return useQuery(['org', orgId], () => call(api.GET('/v1/orgs/{orgId}', { params: { path: { orgId } } })));
}

/** Which cap blocks writes. Any 402 invalidates ['plan-status'] (start.tsx), so the banner shows at once. */
export function usePlanStatus(orgId: string) {
  const { api } = useApp();
  return useQuery(['plan-status', orgId], () => call(api.GET('/v1/orgs/{orgId}/plan-status', { params: { path: { orgId } } })));
}

export function useUserList(orgId: string, query: QueryOf<'listUsers'>) {
  const { api } = useApp();
  return useQuery(['users', orgId, 'list', query], () => call(api.GET('/v1/orgs/{orgId}/users', { params: { path: { orgId }, query } })));
}

export function useApiKeyList(orgId: string, query: QueryOf<'listApiKeys'>) {
  const { api } = useApp();
  return useQuery(['api-keys', orgId, 'list', query], () => call(api.GET('/v1/orgs/{orgId}/api-keys', { params: { path: { orgId }, query } })));
}

export function useImageList(orgId: string, query: QueryOf<'listImages'>, opts: { enabled?: boolean } = {}) {
  const { api } = useApp();
  return useQuery(['images', orgId, 'list', query], () => call(api.GET('/v1/orgs/{orgId}/images', { params: { path: { orgId }, query } })), opts);
}

/** The org's templates (one largest page: more than any org keeps). */
export function useTemplateList(orgId: string) {
  const { api } = useApp();
  return useQuery(['templates', orgId, 'list', 'all'], () =>
    call(api.GET('/v1/orgs/{orgId}/templates', { params: { path: { orgId }, query: { limit: largestPage('listTemplates') } } })),
  );
}

/** Where each user's signature stands at one deployment target (Gmail, Outlook). */
export function useDeploymentList(orgId: string, query: QueryOf<'listDeployments'>) {
  const { api } = useApp();
  return useQuery(['deployments', orgId, query], () => call(api.GET('/v1/orgs/{orgId}/deployments', { params: { path: { orgId }, query } })));
}

export function useAuditList(orgId: string, query: QueryOf<'listAuditEntries'>) {
  const { api } = useApp();
  return useQuery(['audit', orgId, query], () => call(api.GET('/v1/orgs/{orgId}/audit', { params: { path: { orgId }, query } })));
}
