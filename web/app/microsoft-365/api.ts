// The Microsoft 365 page's reads and writes: the Outlook add-in (its manifest, its key), the Entra
// connection (null when not connected) and its syncs, and each user's Outlook deployment (when the
// add-in last fetched their signature).
import { call } from '../../shared/api/client.ts';
import { ApiError } from '../../shared/api/errors.ts';
import { invalidate, useQuery } from '../../shared/api/query.ts';
import { useDeploymentList } from '../../shared/api/resources.ts';
import { useOrg } from '../../shared/app-context.tsx';
import type { Schemas } from '../../shared/api/types.ts';

export type OutlookIntegration = Schemas['OutlookIntegration'];
export type MicrosoftIntegration = Schemas['MicrosoftIntegration'];
export type SyncCounts = { created: number; updated: number; deleted: number; skipped: number };

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
  return useDeploymentList(useOrg().orgId, { target: 'outlook', limit: 50, ...(cursor ? { cursor } : {}) });
}

async function refresh(orgId: string) {
  await Promise.all([invalidate(['microsoft', orgId]), invalidate(['deployments', orgId])]);
}

export function useMicrosoftActions() {
  const { api, orgId } = useOrg();
  const path = { orgId };
  return {
    /** The add-in's manifest, as the XML text an admin uploads (the first download makes the org's add-in key). */
    async manifest(): Promise<string> {
      const xml = (await call(api.GET('/v1/orgs/{orgId}/integrations/outlook/manifest.xml', { params: { path }, parseAs: 'text' }))) as unknown as string;
      await refresh(orgId);
      return xml;
    },
    async rotateAddinKey() {
      await call(api.POST('/v1/orgs/{orgId}/integrations/outlook/rotate-key', { params: { path } }));
      await refresh(orgId);
    },
    async connectEntra(body: { tenantId: string; clientId: string; clientSecret: string }) {
      await call(api.PUT('/v1/orgs/{orgId}/integrations/microsoft', { params: { path }, body }));
      await refresh(orgId);
    },
    async syncEntra() {
      await call(api.POST('/v1/orgs/{orgId}/integrations/microsoft/sync', { params: { path, query: { dryRun: 'false' } } }));
      await refresh(orgId);
    },
    /** What a sync now would change, changing nothing. */
    async previewEntraSync(): Promise<SyncCounts> {
      return (await call(api.POST('/v1/orgs/{orgId}/integrations/microsoft/sync', { params: { path, query: { dryRun: 'true' } } }))) as SyncCounts;
    },
    async disconnectEntra() {
      await call(api.DELETE('/v1/orgs/{orgId}/integrations/microsoft', { params: { path } }));
      await refresh(orgId);
    },
  };
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : 'never');
