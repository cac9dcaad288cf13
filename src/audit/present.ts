// An audit entry as `GET …/audit` lists it; the `audit.event` webhook carries the same
// (src/outbound-webhooks/events.ts).
import type { AuditRow } from '../store/schema.ts';

const iso = (d: Date) => d.toISOString();

/** An entry as `GET …/audit` lists it (and the `audit.event` webhook carries it). */
export const presentEntry = (r: AuditRow) => ({
  at: iso(r.at),
  actor: { type: r.actor_type, id: r.actor_id },
  action: r.action,
  targetId: r.target_id,
  correlationId: r.correlation_id,
  changes: r.changes,
});
