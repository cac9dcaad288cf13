// The API keys feature's reads and writes, under ['api-keys', orgId, …] (the audit page names
// actors from the same lists).
import { call } from '../../shared/api/client.ts';
import { invalidate } from '../../shared/api/query.ts';
import { useApiKeyList } from '../../shared/api/resources.ts';
import { useOrg } from '../../shared/app-context.tsx';

export function useApiKeys(cursor: string | undefined) {
  return useApiKeyList(useOrg().orgId, { limit: 50, ...(cursor ? { cursor } : {}) });
}

export function useApiKeyActions() {
  const { api, orgId } = useOrg();
  return {
    /** Mints a key; the answer carries the secret, shown once. */
    async mint(name: string) {
      const key = await call(api.POST('/v1/orgs/{orgId}/api-keys', { params: { path: { orgId } }, body: { name } }));
      await invalidate(['api-keys', orgId]);
      return key;
    },
    async revoke(keyId: string) {
      await call(api.DELETE('/v1/orgs/{orgId}/api-keys/{keyId}', { params: { path: { orgId, keyId } } }));
      await invalidate(['api-keys', orgId]);
    },
  };
}
