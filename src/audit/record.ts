// Every successful write records an audit entry in the same transaction as the change
// (docs/guide.md, "Audit trail"), carrying the request's correlation id and the changed field names.
// Every entry written here also writes its outbound webhook events (src/outbound-webhooks/events.ts),
// in the same transaction: this is the one place audit entries are written.
import type { Db } from '../store/db.ts';
import { auditRepo, type AuditEntry } from '../store/repositories/audit.ts';
import { emitForAudit } from '../outbound-webhooks/events.ts';
import { actorOf, type Principal } from '../auth/principal.ts';
import type { ActorType } from '../store/schema.ts';

/** What a write knows about the request that asked for it. */
export interface WriteContext {
  orgId: string;
  principal: Principal;
  correlationId: string;
}

export function recordAudit(
  tx: Db,
  ctx: { orgId: string | null; correlationId: string | null; actor?: { type: ActorType; id: string }; principal?: Principal },
  entry: { action: string; targetId: string | null; changes?: string[] },
): Promise<void> {
  const actor = ctx.actor ?? (ctx.principal ? actorOf(ctx.principal) : { type: 'system' as const, id: 'system' });
  return recordAuditEntries(tx, [{ orgId: ctx.orgId, actor, correlationId: ctx.correlationId, ...entry }]);
}

/** Several entries in one statement (billing's batches), with their webhook events. */
export async function recordAuditEntries(tx: Db, entries: AuditEntry[]): Promise<void> {
  await emitForAudit(tx, await auditRepo.insertMany(tx, entries));
}

/** The names of the fields a patch sets (never their values: they may be secret). */
export function changedFields(patch: object): string[] {
  return Object.entries(patch).filter(([, v]) => v !== undefined).map(([k]) => k).sort();
}
