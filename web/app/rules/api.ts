// The rules feature's reads: the org's rules (GET …/rules), whom to test them on, and a person's
// signature for a new message and for a reply (GET …/users/{userId}/signature?compose=…), which
// answers the template and the rule that chose it.
import { call } from '../../shared/api/client.ts';
import { useQuery } from '../../shared/api/query.ts';
import { useTemplateList, useUserList } from '../../shared/api/resources.ts';
import { useOrg } from '../../shared/app-context.tsx';

export function useRules() {
  const { api, orgId } = useOrg();
  return useQuery(['rules', orgId], () => call(api.GET('/v1/orgs/{orgId}/rules', { params: { path: { orgId } } })));
}

export function useTemplates() {
  return useTemplateList(useOrg().orgId);
}

/** The people to pick from: the org's users matching `q` (the first 50). */
export function usePeople(q: string) {
  return useUserList(useOrg().orgId, { limit: 50, ...(q ? { q } : {}) });
}

export function useSignatureFor(userId: string | undefined, compose: 'new' | 'reply') {
  const { api, orgId } = useOrg();
  return useQuery(
    ['signature', orgId, userId, compose, 'rules'],
    () =>
      call(
        api.GET('/v1/orgs/{orgId}/users/{userId}/signature', { params: { path: { orgId, userId: userId as string }, query: { compose, preview: 'true' } } }),
      ),
    { enabled: userId !== undefined },
  );
}
