// Health: GET /health answers whether the database (and Redis, when set) answer.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { databaseCheck, redisCheck, type HealthCheck } from './checks.ts';
import { healthRoutes } from './routes.ts';

export type { HealthCheck };

export type HealthModule = Module<Record<string, HealthCheck>>;

export function healthModule(core: Core): HealthModule {
  const checks: Record<string, HealthCheck> = { database: databaseCheck(core.database) };
  if (core.redis) checks.redis = redisCheck(core.redis);
  return { name: 'health', service: checks, public: [healthRoutes(checks)] };
}
