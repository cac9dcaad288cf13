// The templates feature's reads and writes, under the query keys ['templates', orgId, …] (the
// profile page reads the default template under the same prefix, so a save refreshes it too).
import { call } from '../../shared/api/client.ts';
import { useQuery } from '../../shared/api/query.ts';
import { useOrg } from '../../shared/app-context.tsx';
import type { Schemas } from '../../shared/api/types.ts';

export type Template = Schemas['Template'];
export type Starter = Schemas['StarterTemplate'];

export function useTemplates() {
  const { api, orgId } = useOrg();
  return useQuery(['templates', orgId, 'list', 'all'], () =>
    call(api.GET('/v1/orgs/{orgId}/templates', { params: { path: { orgId }, query: { limit: 200 } } })),
  );
}

export function useTemplate(templateId: string) {
  const { api, orgId } = useOrg();
  return useQuery(['templates', orgId, 'one', templateId], () =>
    call(api.GET('/v1/orgs/{orgId}/templates/{templateId}', { params: { path: { orgId, templateId } } })),
  );
}

/** The starter templates an admin can begin from (GET …/templates/starters). */
export function useStarters() {
  const { api, orgId } = useOrg();
  return useQuery(['templates', orgId, 'starters'], async () =>
    (await call(api.GET('/v1/orgs/{orgId}/templates/starters', { params: { path: { orgId } } }))).items,
  );
}
