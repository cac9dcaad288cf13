// The signature page's one read.
import { call } from '../../shared/api/client.ts';
import { useQuery } from '../../shared/api/query.ts';
import { useOrg } from '../../shared/app-context.tsx';

/** The signed-in person's signature, as the org's rules give it (`GET …/users/{id}/signature`, a preview: counted nowhere). */
export function useMySignature() {
  const { api, orgId, me } = useOrg();
  return useQuery(['signature', orgId, me.userId], () =>
    call(api.GET('/v1/orgs/{orgId}/users/{userId}/signature', { params: { path: { orgId, userId: me.userId }, query: { preview: 'true' } } })),
  );
}
