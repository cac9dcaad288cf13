// An audit entry as the API answers it: the one place an audit row becomes the resource (the staff
// audit has its own shape, src/admin/resource.ts).
import type { AuditRow } from '../store/schema.ts';

export interface AuditEntry {
  at: string;
  actor: { type: AuditRow['actor_type']; id: string };
  action: string;
  targetId: string | null;
  correlationId: string | null;
  /** Names of the changed fields, never their values. */
  changes: string[];
}

export const toAuditEntry = (r: AuditRow): AuditEntry => ({
  at: r.at.toISOString(),
  actor: { type: r.actor_type, id: r.actor_id },
  action: r.action,
  targetId: r.target_id,
  correlationId: r.correlation_id,
  changes: r.changes,
});
