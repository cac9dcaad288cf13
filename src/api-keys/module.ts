// API keys: minted, listed and revoked per org; verified on every request that carries one.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { apiKeysRepo } from '../store/repositories/api-keys.ts';
import { KeyUsageRecorder } from './usage.ts';
import { createApiKeyService, type ApiKeyService } from './service.ts';
import { apiKeyRoutes } from './routes.ts';
import { KEY_PREFIX } from './key-format.ts';

export { KEY_PREFIX, type ApiKeyService };

export function apiKeysModule(core: Core): Module<ApiKeyService> {
  const { db } = core;
  // Last-used times are written behind, in batches; the buffer is flushed on close.
  const usage = new KeyUsageRecorder((uses) => apiKeysRepo.touch(db, uses), core.logger);
  const apiKeys = createApiKeyService({ db, stage: core.config.stage, caches: core.caches, usage, clock: core.clock });
  return {
    name: 'api-keys',
    service: apiKeys,
    api: ({ guards, billing }) => [apiKeyRoutes({ guards, billing, apiKeys })],
    close: () => usage.close(),
  };
}
