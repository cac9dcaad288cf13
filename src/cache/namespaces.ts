// Every cache of the service, in one place: what each holds and under which key, how many entries
// it keeps, how long an entry lives in each database mode, and what each kind of write forgets.
// Services read through `caches.<name>` and, after a write commits, call `caches.invalidate.*`;
// nothing else forgets entries. (The model is unkey's `pkg/cache/namespaces.ts`: one table of
// namespaces instead of caches made wherever they are used.)
//
// Lifetimes. Rows read from the database are kept until forgotten with the embedded database (it
// belongs to this process, so nothing changes behind its back), and for at most CACHE_TTL_MS with a
// PostgreSQL server (other instances write too; this instance forgets its own writes at once).
// Entries keyed by versions (rendered output) cannot go stale and need neither.
//
// Not here: the parsed templates of each render thread (render/worker.ts: another thread's memory,
// keyed by template id and version, so never stale), and the identity provider's public keys
// (auth/id-token.ts: a key set no write of ours touches, reloaded when a token names a new key).
import { LRUCache } from 'lru-cache';
import { entryBound } from '../lib/lru.ts';
import type { OrgWithUsage } from '../store/repositories/orgs.ts';
import type { CampaignRow, StoredRule, TemplateRow, UserRow } from '../store/schema.ts';
import type { Principal } from '../kernel/principal.ts';
import type { Rendered, RenderRefused } from '../kernel/rendered.ts';
import { ReadCache } from './read-cache.ts';

/** What an API key's hash resolves to; `revoked` is cached too, so a revoked key costs no query. */
export interface CachedKey {
  keyId: string;
  orgId: string;
  revoked: boolean;
}

/** The live state of a token holder, checked on every ID-token request. */
export interface AccountState {
  orgId: string | null;
  role: string;
  kind: 'user' | 'staff';
}

/** What the public image route answers (images/service.ts). */
export interface CachedImage {
  orgId: string;
  contentType: string;
  etag: string;
  bytes: number;
  /** The bytes, on a PostgreSQL server; the embedded store's are in a file (images/files.ts), read on each fetch. */
  data?: Buffer;
}

export interface CacheSettings {
  /** The database's kind: `embedded` (PGlite) belongs to one process; a `postgres` server may have several instances. */
  mode: 'embedded' | 'postgres';
  /** CACHE_TTL_MS: the most an entry may lag another instance's write, with a PostgreSQL server. */
  ttlMs: number;
}

/** How long a cached database row lives in each mode (Infinity: until forgotten or pushed out). */
export const rowLifetimeMs = (s: CacheSettings): number => (s.mode === 'embedded' ? Number.POSITIVE_INFINITY : s.ttlMs);

/** What the render service answered for a signature (render/service.ts), keyed by versions. */
function renderResults() {
  return {
    /**
     * Rendered output by `templateId:version:userId:version:orgVersion`: a write to any of the
     * three bumps a version, so the next render misses; old entries age out. Bounded by bytes too.
     */
    renderOutputs: new LRUCache<string, Rendered>({
      max: 20_000,
      maxSize: 64 * 1024 * 1024,
      sizeCalculation: (r) => r.bytes * 2 + r.text.length * 2 + 64,
    }),
    /**
     * A render's refusal (the template past its limits with this user's values), by the key of
     * `renderOutputs`: a retry of a refused signature is answered from here rather than costing a
     * render thread's time again, until a version in the key changes. Bounded by count.
     */
    renderRefusals: new LRUCache<string, RenderRefused>(entryBound(20_000)),
  };
}

export function createCaches(settings: CacheSettings) {
  const ttlMs = rowLifetimeMs(settings);
  const caches = {
    /** API key by the SHA-256 of its value (api-keys/service.ts). Forgotten on revocation. */
    apiKeys: new ReadCache<CachedKey>({ max: 50_000, ttlMs }),
    /** Org by id, with its live user count (orgs/service.ts). Forgotten by org and user writes. */
    orgs: new ReadCache<OrgWithUsage>({ max: 10_000, ttlMs }),
    /** User or staff account by id: org, role, kind (auth/accounts-cache.ts). Forgotten by user writes. */
    accounts: new ReadCache<AccountState>({ max: 100_000, ttlMs }),
    /** User row by `orgId:userId`, for rendering (render/service.ts). Forgotten by user writes. */
    renderUsers: new ReadCache<UserRow>({ max: 100_000, ttlMs }),
    /** Template row by `orgId:templateId`, for rendering. Forgotten by template writes. */
    templates: new ReadCache<TemplateRow>({ max: 20_000, ttlMs }),
    /** The org's default template id by `orgId`. Forgotten by template writes (any may move the default). */
    defaultTemplates: new ReadCache<{ templateId: string | null }>({ max: 20_000, ttlMs }),
    /** An org's assignment rules and their version (rules/service.ts). Forgotten when the list is replaced. */
    rules: new ReadCache<{ rules: StoredRule[]; version: number }>({ max: 20_000, ttlMs }),
    /**
     * The lower-cased display names of each user's SCIM groups, by `orgId` (rules/service.ts: read
     * only when a rule names groups). Forgotten by group writes and by user writes.
     */
    userGroups: new ReadCache<Map<string, string[]>>({ max: 5_000, ttlMs }),
    /** An org's campaigns not ended when read, by `orgId` (campaigns/service.ts). Forgotten by campaign writes. */
    campaigns: new ReadCache<{ rows: CampaignRow[] }>({ max: 20_000, ttlMs }),
    /** The org of an Outlook add-in key, by the key's SHA-256 (outlook/service.ts). Forgotten on rotation. */
    addinKeys: new ReadCache<{ orgId: string }>({ max: 20_000, ttlMs }),
    /**
     * Whether any live, enabled outbound webhook endpoint of the org, by `orgId`, subscribes to
     * `signature.rendered` (src/outbound-webhooks/rendered.ts: renders ask on every call).
     * Forgotten by the org's endpoint writes.
     */
    webhookRendered: new ReadCache<{ subscribed: boolean }>({ max: 20_000, ttlMs }),
    ...renderResults(),
    /**
     * An image's type, ETag and (PostgreSQL) bytes by image id, for the public route mail clients fetch (images/service.ts). An
     * id always names the same bytes, so only a deletion makes an entry stale: forgotten by it, and
     * kept at most a row's lifetime (another instance may delete). Bounded by bytes too (1 MB each).
     */
    images: new LRUCache<string, CachedImage>({
      max: 2_000,
      maxSize: 32 * 1024 * 1024,
      sizeCalculation: (i) => (i.data?.byteLength ?? 0) + 128,
      ...(Number.isFinite(ttlMs) ? { ttl: Math.max(ttlMs, 1) } : {}),
    }),
    /**
     * A verified ID token by its SHA-256, until the token's `exp` (auth/id-token.ts). It holds the
     * claims, which never change; the account's current state comes from `accounts` on every use.
     */
    idTokens: new LRUCache<string, { principal: Principal; exp: number; local: boolean }>(entryBound(50_000)),
  };

  const invalidate = {
    /**
     * A user was created, changed or deleted: by an admin through the API, or by any write of the
     * user's own sign-in steps (failures and lockouts, TOTP, a new password). Forgets the account's
     * state, its org (the live user count is the seat count) and the row its renders read.
     */
    userChanged(orgId: string, userId: string): void {
      caches.orgs.delete(orgId);
      caches.accounts.delete(userId);
      caches.renderUsers.delete(`${orgId}:${userId}`);
      caches.userGroups.delete(orgId);
    },
    /** A SCIM group, or its members, changed: the rules' view of who belongs where. */
    groupsChanged(orgId: string): void {
      caches.userGroups.delete(orgId);
    },
    /** A campaign was created, changed or deleted. */
    campaignsChanged(orgId: string): void {
      caches.campaigns.delete(orgId);
    },
    /** The org's rules were replaced. */
    rulesChanged(orgId: string): void {
      caches.rules.delete(orgId);
    },
    /** A staff account changed through the sign-in steps (staff have no org and are never rendered). */
    staffChanged(staffId: string): void {
      caches.accounts.delete(staffId);
    },
    /** A template was created, changed or deleted: its row and the org's default, which renders read. */
    templateChanged(orgId: string, templateId: string): void {
      caches.templates.delete(`${orgId}:${templateId}`);
      caches.defaultTemplates.delete(orgId);
    },
    /** The org itself changed (its name, or its billing state); renders key on its version. */
    orgChanged(orgId: string): void {
      caches.orgs.delete(orgId);
    },
    /** An org's Outlook add-in key was replaced: the old one stops resolving. */
    addinKeyRotated(keyHash: string): void {
      caches.addinKeys.delete(keyHash);
    },
    /** An image was deleted: its URL stops answering on this instance at once. */
    imageDeleted(imageId: string): void {
      caches.images.delete(imageId);
    },
    /** An org's outbound webhook endpoints changed (created, edited, disabled, deleted). */
    webhookEndpointsChanged(orgId: string): void {
      caches.webhookRendered.delete(orgId);
    },
    /** A key was revoked: the next use reads the revocation. */
    keyRevoked(keyHash: string): void {
      caches.apiKeys.delete(keyHash);
    },
  };

  return { ...caches, invalidate };
}

export type Caches = ReturnType<typeof createCaches>;
/** What a service that only writes needs: the invalidation rules, not the caches. */
export type Invalidate = Caches['invalidate'];

/** For a one-shot command (the CLI): every read goes to the database, so there is nothing to forget. */
export const uncached = (): Caches => createCaches({ mode: 'postgres', ttlMs: 0 });
