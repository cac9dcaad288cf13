import { randomUUID } from 'node:crypto';
import type { Caches } from '../cache/namespaces.ts';
import type { Db } from '../store/db.ts';
import { apiKeysRepo } from '../store/repositories/api-keys.ts';
import { decodeCursor, toPage, type Page, type PageRequest } from '../store/pagination.ts';
import { notFound } from '../kernel/errors.ts';
import { recordAudit, type WriteContext } from '../audit/record.ts';
import { hashKey, mintKey, parseKey } from './key-format.ts';
import type { KeyUsageRecorder } from './usage.ts';
import { toApiKey, type ApiKey, type MintedApiKey, type RevokedApiKey } from './resource.ts';

export type KeyVerification = { ok: true; keyId: string; orgId: string } | { ok: false; reason: 'malformed' | 'wrong-stage' | 'unknown' | 'revoked' };

export function createApiKeyService(deps: { db: Db; stage: string; caches: Caches; usage: KeyUsageRecorder; clock: () => Date }) {
  const { db, stage, usage, clock, caches } = deps;

  return {
    /** The key's org, or why it is refused; a known key's use is recorded off the request path. */
    async verify(value: string): Promise<KeyVerification> {
      const shape = parseKey(value);
      if (!shape.ok) return { ok: false, reason: 'malformed' };
      if (shape.stage !== stage) return { ok: false, reason: 'wrong-stage' };
      const hash = hashKey(value);
      const entry = await caches.apiKeys.get(hash, async () => {
        const row = await apiKeysRepo.findByHash(db, hash);
        return row ? { keyId: row.id, orgId: row.org_id, revoked: row.revoked_at !== null } : undefined;
      });
      if (!entry) return { ok: false, reason: 'unknown' };
      if (entry.revoked) return { ok: false, reason: 'revoked' };
      usage.record(entry.keyId, clock());
      return { ok: true, keyId: entry.keyId, orgId: entry.orgId };
    },

    /** A new key (shown once); inside `tx` when given, as org creation does. */
    async mint(ctx: WriteContext, input: { name: string }, tx?: Db): Promise<MintedApiKey> {
      const minted = mintKey(stage);
      const write = async (t: Db) => {
        const row = await apiKeysRepo.insert(t, {
          id: randomUUID(),
          org_id: ctx.orgId,
          name: input.name,
          prefix: minted.prefix,
          key_hash: minted.hash,
        });
        await recordAudit(t, ctx, { action: 'apiKey.create', targetId: row.id, changes: ['name'] });
        return row;
      };
      const row = tx ? await write(tx) : await db.transaction().execute(write);
      return { ...toApiKey(row), key: minted.key };
    },

    async list(orgId: string, page: PageRequest): Promise<Page<ApiKey>> {
      const rows = await apiKeysRepo.list(db, orgId, decodeCursor(page.cursor), page.limit);
      return toPage(rows, page.limit, (r) => r.seq, toApiKey);
    },

    /** Revoking a revoked key answers when it was revoked. */
    async revoke(ctx: WriteContext, keyId: string): Promise<RevokedApiKey> {
      const row = await db.transaction().execute(async (tx) => {
        const revoked = await apiKeysRepo.revoke(tx, ctx.orgId, keyId);
        if (revoked) await recordAudit(tx, ctx, { action: 'apiKey.revoke', targetId: keyId, changes: ['revokedAt'] });
        return revoked ?? (await apiKeysRepo.find(tx, ctx.orgId, keyId));
      });
      if (!row) throw notFound('API key');
      caches.invalidate.keyRevoked(row.key_hash);
      return { keyId: row.id, revoked: true, revokedAt: (row.revoked_at as Date).toISOString() };
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
