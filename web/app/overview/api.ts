// The overview's reads: the org, its plan status, and the signature opens of a span of days.
import { call } from '../../shared/api/client.ts';
import { useQuery } from '../../shared/api/query.ts';
import { useOrgResource, usePlanStatus, useTemplateList } from '../../shared/api/resources.ts';
import { useOrg } from '../../shared/app-context.tsx';

export function useOverviewOrg() {
  return useOrgResource(useOrg().orgId);
}

export function useOverviewPlan() {
  return usePlanStatus(useOrg().orgId);
}

/** Opens per day from `from` to `to` (YYYY-MM-DD, inclusive). */
export function useOpens(from: string, to: string) {
  const { api, orgId } = useOrg();
  return useQuery(['opens', orgId, from], () => call(api.GET('/v1/orgs/{orgId}/opens', { params: { path: { orgId }, query: { from, to } } })));
}

/** The org's templates, for the getting-started steps (is there a default one yet?). */
export function useOverviewTemplates() {
  return useTemplateList(useOrg().orgId);
}
