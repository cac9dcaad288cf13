// The Google Workspace connection's server state: the connection (a 404 means "not connected"),
// the jobs a sync or a push started, followed until they end.
import { useEffect, useState } from 'react';
import { call } from '../../shared/api/client.ts';
import { ApiError } from '../../shared/api/errors.ts';
import { invalidate, useQuery } from '../../shared/api/query.ts';
import { useOrg } from '../../shared/app-context.tsx';
import type { Schemas } from '../../shared/api/types.ts';

export type GoogleIntegration = Schemas['GoogleIntegration'];
export type Job = Schemas['Job'];

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
          await invalidate(['google', orgId]);
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
