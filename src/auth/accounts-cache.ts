// The live state of token holders, for ID-token authentication: served from a short cache
// (CACHE_TTL_MS), forgotten at once on this instance when a user changes.
import { ReadCache } from '../store/read-cache.ts';
import type { Db } from '../store/db.ts';
import { accountsRepo } from '../store/repositories/accounts.ts';
import type { Principal } from './principal.ts';

export function createAccountsCache(deps: { db: Db; ttlMs: number }) {
  const cache = new ReadCache<{ orgId: string | null; role: string; kind: string }>({ max: 100_000, ttlMs: deps.ttlMs });
  return {
    invalidate(accountId: string) {
      cache.delete(accountId);
    },
    async current(p: Principal): Promise<Principal | undefined> {
      if (p.kind === 'apiKey') return p;
      const entry = await cache.get(p.userId, async () => {
        const account = await accountsRepo.byId(deps.db, p.userId);
        return account ? { orgId: account.orgId, role: account.role, kind: account.kind } : undefined;
      });
      if (!entry) return undefined;
      if (p.kind === 'staff') return entry.kind === 'staff' ? p : undefined;
      if (entry.kind !== 'user' || entry.orgId !== p.orgId) return undefined;
      return { ...p, role: entry.role as 'member' | 'admin' | 'owner' };
    },
  };
}

export type AccountsCache = ReturnType<typeof createAccountsCache>;
