// The page's reads: the Outlook add-in, the Entra connection (null when not connected), and each
// user's Outlook deployment (when the add-in last fetched their signature).
import { call } from '../../shared/api/client.ts';
import { ApiError } from '../../shared/api/errors.ts';
import { useQuery } from '../../shared/api/query.ts';
import { useOrg } from '../../shared/app-context.tsx';
import type { Schemas } from '../../shared/api/types.ts';

export type OutlookIntegration = Schemas['OutlookIntegration'];
export type MicrosoftIntegration = Schemas['MicrosoftIntegration'];

export function useOutlook() {
  const { api, orgId } = useOrg();
  return useQuery(['microsoft', orgId, 'outlook'], () => call(api.GET('/v1/orgs/{orgId}/integrations/outlook', { params: { path: { orgId } } })));
}

export function useEntra() {
  const { api, orgId } = useOrg();
  return useQuery(['microsoft', orgId, 'entra'], async (): Promise<MicrosoftIntegration | null> => {
    try {
      return await call(api.GET('/v1/orgs/{orgId}/integrations/microsoft', { params: { path: { orgId } } }));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
  });
}

export function useOutlookDeployments(cursor: string | undefined) {
  const { api, orgId } = useOrg();
  return useQuery(['microsoft', orgId, 'deployments', cursor ?? ''], () =>
    call(api.GET('/v1/orgs/{orgId}/deployments', { params: { path: { orgId }, query: { target: 'outlook', limit: 50, ...(cursor ? { cursor } : {}) } } })),
  );
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : 'never');
