// The live state of token holders, for ID-token authentication, through the `accounts` cache
// (src/cache/namespaces.ts: user and staff writes forget it).
import type { Caches } from '../cache/namespaces.ts';
import type { Db } from '../store/db.ts';
import { accountsRepo } from '../store/repositories/accounts.ts';
import type { Principal } from '../kernel/principal.ts';

export function createAccountsCache(deps: { db: Db; caches: Caches }) {
  return {
    async current(p: Principal): Promise<Principal | undefined> {
      if (p.kind === 'apiKey') return p;
      const entry = await deps.caches.accounts.get(p.userId, async () => {
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
