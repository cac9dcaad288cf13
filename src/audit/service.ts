// Reading the audit trail (writes go through record.ts, inside each change's own transaction).
import type { Db } from '../store/db.ts';
import { auditRepo, type AuditFilter } from '../store/repositories/audit.ts';
import { decodeCursor, toPage, type Page, type PageRequest } from '../store/pagination.ts';
import { toAuditEntry, type AuditEntry } from './resource.ts';

export function createAuditService(deps: { db: Db }) {
  return {
    /** An org's entries, newest first, narrowed by action, target, actor and a time range. */
    async list(orgId: string, filter: AuditFilter, page: PageRequest): Promise<Page<AuditEntry>> {
      const rows = await auditRepo.list(deps.db, orgId, filter, decodeCursor(page.cursor), page.limit);
      return toPage(rows, page.limit, (r) => r.id, toAuditEntry);
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
