// The signature page's one read.
import { call } from '../../shared/api/client.ts';
import { useQuery } from '../../shared/api/query.ts';
import { useOrg } from '../../shared/app-context.tsx';

/** The signed-in person's signature, rendered with the org's default template (`GET …/users/{id}/signature`). */
export function useMySignature() {
  const { api, orgId, me } = useOrg();
  return useQuery(['signature', orgId, me.userId], () =>
    call(api.GET('/v1/orgs/{orgId}/users/{userId}/signature', { params: { path: { orgId, userId: me.userId } } })),
  );
}
