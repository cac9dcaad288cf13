// The audit page's reads: the org's log with its filters, and names for the actor ids it shows
// (the org's users and API keys, the same lists their own pages read).
import { useApiKeyList, useAuditList, useUserList, type QueryOf } from '../../shared/api/resources.ts';
import { useOrg } from '../../shared/app-context.tsx';
import { largestPage } from '../../shared/api/field-limits.ts';

export type AuditQuery = QueryOf<'listAuditEntries'>;

export function useAudit(query: AuditQuery) {
  return useAuditList(useOrg().orgId, query);
}

/** Names for actor ids: one largest page of users and of API keys (an actor beyond them, or deleted, shows its id). */
export function useActorNames(): Map<string, string> {
  const { orgId } = useOrg();
  const users = useUserList(orgId, { limit: largestPage('listUsers') });
  const keys = useApiKeyList(orgId, { limit: largestPage('listApiKeys') });
  const names = new Map<string, string>();
  for (const u of users.data?.items ?? []) names.set(u.userId, u.name || u.email);
  for (const k of keys.data?.items ?? []) names.set(k.keyId, k.name);
  return names;
}
