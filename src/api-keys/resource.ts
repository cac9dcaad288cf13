// An API key as the API answers it (never its hash): the one place an api_keys row becomes the resource.
import type { ApiKeyRow } from '../store/schema.ts';

export interface ApiKey {
  keyId: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** A key just minted: the resource and its secret, shown this once. */
export type MintedApiKey = ApiKey & { key: string };

/** The answer to a revocation. */
export interface RevokedApiKey {
  keyId: string;
  revoked: true;
  revokedAt: string;
}

export function toApiKey(k: ApiKeyRow): ApiKey {
  return {
    keyId: k.id,
    name: k.name,
    prefix: k.prefix,
    createdAt: k.created_at.toISOString(),
    lastUsedAt: k.last_used_at?.toISOString() ?? null,
    revokedAt: k.revoked_at?.toISOString() ?? null,
  };
}
