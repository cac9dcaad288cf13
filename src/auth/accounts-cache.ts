// The live state of token holders, for ID-token authentication: served from a short cache
// (CACHE_TTL_MS), forgotten at once on this instance when a user changes.
import { LRUCache } from 'lru-cache';
import type { Db } from '../store/db.ts';
import { accountsRepo } from '../store/repositories/accounts.ts';
import type { Principal } from './principal.ts';

export function createAccountsCache(deps: { db: Db; ttlMs: number }) {
  const cache = new LRUCache<string, { orgId: string | null; role: string; kind: string } | { gone: true }>({
    max: 100_000,
    ttl: Math.max(deps.ttlMs, 1),
  });
  return {
    invalidate(accountId: string) {
      cache.delete(accountId);
    },
    async current(p: Principal): Promise<Principal | undefined> {
      if (p.kind === 'apiKey') return p;
      let entry = deps.ttlMs > 0 ? cache.get(p.userId) : undefined;
      if (!entry) {
        const account = await accountsRepo.byId(deps.db, p.userId);
        entry = account ? { orgId: account.orgId, role: account.role, kind: account.kind } : { gone: true };
        if (deps.ttlMs > 0) cache.set(p.userId, entry);
      }
      if ('gone' in entry) return undefined;
      if (p.kind === 'staff') return entry.kind === 'staff' ? p : undefined;
      if (entry.kind !== 'user' || entry.orgId !== p.orgId) return undefined;
      return { ...p, role: entry.role as 'member' | 'admin' | 'owner' };
    },
  };
}

export type AccountsCache = ReturnType<typeof createAccountsCache>;
