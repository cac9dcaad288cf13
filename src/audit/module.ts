// The org's audit log (GET …/audit). Entries are written by each service in its own transaction
// (audit/record.ts), which capabilities import directly.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { createAuditService, type AuditService } from './service.ts';
import { auditRoutes } from './routes.ts';

export type { AuditService };

export function auditModule(core: Core): Module<AuditService> {
  const audit = createAuditService({ db: core.db });
  return { name: 'audit', service: audit, api: ({ guards }) => [auditRoutes({ guards, audit })] };
}
