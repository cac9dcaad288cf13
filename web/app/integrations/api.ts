// The Google Workspace connection's server state: the connection (a 404 means "not connected"),
// the users' signatures in Gmail, the connection test, the sync preview, and the jobs a sync or a
// push started, followed until they end.
import { useEffect, useState } from 'react';
import { call } from '../../shared/api/client.ts';
import { ApiError } from '../../shared/api/errors.ts';
import { invalidate, useQuery } from '../../shared/api/query.ts';
import { useDeploymentList, type QueryOf } from '../../shared/api/resources.ts';
import { useOrg } from '../../shared/app-context.tsx';
import type { Schemas } from '../../shared/api/types.ts';

export type GoogleIntegration = Schemas['GoogleIntegration'];
export type Job = Schemas['Job'];
export type DeploymentState = NonNullable<QueryOf<'listDeployments'>['state']>;

export function useGoogleIntegration() {
  const { api, orgId } = useOrg();
  return useQuery(['google', orgId, 'connection'], async () => {
    try {
      return await call(api.GET('/v1/orgs/{orgId}/integrations/google', { params: { path: { orgId } } }));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
  });
}

/** Each user's signature in Gmail, in one state or all. */
export function useGmailDeployments(state: DeploymentState | '', cursor: string | undefined) {
  return useDeploymentList(useOrg().orgId, { target: 'gmail', limit: 50, ...(state ? { state } : {}), ...(cursor ? { cursor } : {}) });
}

/** What a run moved: the connection (its counts and last run) and the deployments. */
async function refresh(orgId: string) {
  await Promise.all([invalidate(['google', orgId]), invalidate(['deployments', orgId])]);
}

export function useGoogleActions() {
  const { api, orgId } = useOrg();
  const path = { orgId };
  return {
    /** Connects, or changes the settings (a key left out keeps the current one). */
    async save(body: { adminEmail: string; syncUsers: boolean; pushSignatures: boolean; serviceAccountKey?: Record<string, unknown> }) {
      await call(api.PUT('/v1/orgs/{orgId}/integrations/google', { params: { path }, body }));
      await refresh(orgId);
    },
    test() {
      return call(api.POST('/v1/orgs/{orgId}/integrations/google/test', { params: { path } }));
    },
    /** What a sync would change; with dryRun the route answers 200 with the changes (its 202 answers a job). */
    async previewSync() {
      return (await call(
        api.POST('/v1/orgs/{orgId}/integrations/google/sync', { params: { path, query: { dryRun: 'true' } } }),
      )) as Schemas['DirectorySyncResult'];
    },
    /** Starts a sync or a push: the id of the job to follow. */
    async start(what: 'sync' | 'push') {
      const started =
        what === 'sync'
          ? await call(api.POST('/v1/orgs/{orgId}/integrations/google/sync', { params: { path } }))
          : await call(api.POST('/v1/orgs/{orgId}/integrations/google/push', { params: { path } }));
      return (started as { jobId: string }).jobId;
    },
    async disconnect() {
      await call(api.DELETE('/v1/orgs/{orgId}/integrations/google', { params: { path } }));
      await refresh(orgId);
    },
  };
}

/** Follows a job every second until it ends; then the connection and the deployments are read again. */
export function useJob(jobId: string | null): Job | undefined {
  const { api, orgId } = useOrg();
  const [job, setJob] = useState<Job | undefined>(undefined);
  useEffect(() => {
    setJob(undefined);
    if (!jobId) return;
    let stopped = false;
    const poll = async () => {
      while (!stopped) {
        const current = await call(api.GET('/v1/orgs/{orgId}/jobs/{jobId}', { params: { path: { orgId, jobId } } })).catch(() => undefined);
        if (stopped) return;
        if (current) setJob(current);
        if (current && (current.state === 'succeeded' || current.state === 'failed')) {
          await refresh(orgId);
          return;
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    void poll();
    return () => {
      stopped = true;
    };
  }, [api, orgId, jobId]);
  return job;
}

// SCIM provisioning (docs/scim.md): whether it is on, its base URL and last request; generating a
// token answers it once (the caller shows it, nothing keeps it), revoking turns SCIM off.
export type ScimIntegration = Schemas['ScimIntegration'];

export function useScimIntegration() {
  const { api, orgId } = useOrg();
  return useQuery(['scim', orgId], () => call(api.GET('/v1/orgs/{orgId}/integrations/scim', { params: { path: { orgId } } })));
}

export function useScimActions() {
  const { api, orgId } = useOrg();
  const path = { orgId };
  return {
    async generate(): Promise<Schemas['ScimToken']> {
      const created = await call(api.POST('/v1/orgs/{orgId}/integrations/scim', { params: { path } }));
      await invalidate(['scim', orgId]);
      return created;
    },
    async revoke() {
      await call(api.DELETE('/v1/orgs/{orgId}/integrations/scim', { params: { path } }));
      await invalidate(['scim', orgId]);
    },
  };
}
