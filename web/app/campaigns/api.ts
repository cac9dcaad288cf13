// The campaigns feature's reads and writes (docs/api.md, "Campaigns"): the list, scheduling one,
// ending one now (PATCH {version, endsAt}) or cancelling one not started (DELETE), and a person's signature as it is now, for the preview.
import { call } from '../../shared/api/client.ts';
import { largestPage } from '../../shared/api/field-limits.ts';
import { invalidate, useQuery } from '../../shared/api/query.ts';
import { useImageList, useUserList } from '../../shared/api/resources.ts';
import { useOrg } from '../../shared/app-context.tsx';
import type { components } from '../../shared/api/types.ts';

export type Campaign = components['schemas']['Campaign'];
export type CampaignDraft = Omit<Campaign, 'campaignId' | 'status' | 'version' | 'createdAt' | 'updatedAt'>;

export function useCampaigns() {
  const { api, orgId } = useOrg();
  return useQuery(['campaigns', orgId], () =>
    call(api.GET('/v1/orgs/{orgId}/campaigns', { params: { path: { orgId }, query: { limit: largestPage('listCampaigns') } } })),
  );
}

export function useImages() {
  return useImageList(useOrg().orgId, { limit: largestPage('listImages') });
}

export function usePeople(q: string) {
  return useUserList(useOrg().orgId, { limit: 50, ...(q ? { q } : {}) });
}

export function usePreview(userId: string | undefined) {
  const { api, orgId } = useOrg();
  return useQuery(
    ['signature', orgId, userId, 'campaigns'],
    () => call(api.GET('/v1/orgs/{orgId}/users/{userId}/signature', { params: { path: { orgId, userId: userId as string }, query: { preview: 'true' } } })),
    { enabled: userId !== undefined },
  );
}

/** When the server answered, by its `Date` header (whole seconds, so never ahead of it); the browser's clock without one. */
const serverTimeOf = (response: Response) => Date.parse(response.headers.get('date') ?? '') || Date.now();

export function useCampaignActions() {
  const { api, orgId } = useOrg();
  // A campaign changes what signatures show: the previews are read again too.
  const refresh = () => Promise.all([invalidate(['campaigns', orgId]), invalidate(['signature', orgId])]);
  /** The server's time now, from a read's `Date` header. */
  const serverNow = async () => {
    const read = await api.GET('/v1/orgs/{orgId}/campaigns', { params: { path: { orgId }, query: { limit: 1 } } });
    await call(Promise.resolve(read));
    return serverTimeOf(read.response);
  };
  return {
    /**
     * Schedules a campaign. `startNow`: it starts at the server's time, not the browser's (the
     * form's default): a browser clock minutes ahead would otherwise schedule it for later.
     */
    async create(body: CampaignDraft, opts: { startNow?: boolean } = {}) {
      const startsAt = opts.startNow ? new Date(await serverNow()).toISOString() : body.startsAt;
      const made = await call(api.POST('/v1/orgs/{orgId}/campaigns', { params: { path: { orgId } }, body: { ...body, startsAt } }));
      await refresh();
      return made;
    },
    /**
     * Ends an active campaign at the server's time, not the browser's: a browser clock minutes
     * ahead would leave the banner up until then, one behind could end it before it started (a 400).
     * The campaign is read again first, for its current version and the answer's `Date` header.
     */
    async endNow(c: Campaign) {
      const path = { orgId, campaignId: c.campaignId };
      const read = await api.GET('/v1/orgs/{orgId}/campaigns/{campaignId}', { params: { path } });
      const fresh = await call(Promise.resolve(read));
      // The header counts whole seconds: a campaign started within the last one still ends after it began.
      const endsAt = new Date(Math.max(serverTimeOf(read.response), Date.parse(fresh.startsAt) + 1)).toISOString();
      await call(api.PATCH('/v1/orgs/{orgId}/campaigns/{campaignId}', { params: { path }, body: { version: fresh.version, endsAt } }));
      await refresh();
    },
    /** A campaign that has not started yet is cancelled: it never showed, so nothing of it is kept. */
    async cancel(c: Campaign) {
      await call(api.DELETE('/v1/orgs/{orgId}/campaigns/{campaignId}', { params: { path: { orgId, campaignId: c.campaignId } } }));
      await refresh();
    },
  };
}

export type CampaignStats = components['schemas']['CampaignStats'];

export function useCampaignStats(campaignId: string) {
  const { api, orgId } = useOrg();
  return useQuery(
    ['campaigns', orgId, 'stats', campaignId],
    () => call(api.GET('/v1/orgs/{orgId}/campaigns/{campaignId}/stats', { params: { path: { orgId, campaignId } } })) as Promise<CampaignStats>,
  );
}

/** Fetches the CSV (with the same credentials as every call) and saves it as a file. */
export function useCsvDownload(campaignId: string) {
  const { api, orgId } = useOrg();
  return async () => {
    const { response } = await api.GET('/v1/orgs/{orgId}/campaigns/{campaignId}/stats', {
      params: { path: { orgId, campaignId } },
      headers: { accept: 'text/csv' },
      parseAs: 'text',
    });
    if (!response.ok) throw new Error(`The CSV could not be made (${response.status}).`);
    const blob = await response.clone().blob();
    const link = document.createElement('a');
    link.href = URL.createObjectURL(blob);
    link.download = 'campaign-stats.csv';
    link.click();
    URL.revokeObjectURL(link.href);
  };
}

/** The org's groups (SCIM), to choose an audience from: the largest page. */
export function useGroups() {
  const { api, orgId } = useOrg();
  return useQuery(['groups', orgId], () =>
    call(api.GET('/v1/orgs/{orgId}/groups', { params: { path: { orgId }, query: { limit: largestPage('listGroups') } } })),
  );
}

/** The org's custom fields (GET …/fields), whose values an audience may require. */
export function useCustomFields() {
  const { api, orgId } = useOrg();
  return useQuery(['fields', orgId], () => call(api.GET('/v1/orgs/{orgId}/fields', { params: { path: { orgId } } })));
}
