// Every successful write records an audit entry in the same transaction as the change
// (docs/guide.md, "Audit trail"), carrying the request's correlation id and the changed field names.
import type { Db } from '../store/db.ts';
import { auditRepo } from '../store/repositories/audit.ts';
import { actorOf, type Principal } from '../kernel/principal.ts';
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
  return auditRepo.insert(tx, { orgId: ctx.orgId, actor, correlationId: ctx.correlationId, ...entry });
}

/** The names of the fields a patch sets (never their values: they may be secret). */
export function changedFields(patch: object): string[] {
  return Object.entries(patch).filter(([, v]) => v !== undefined).map(([k]) => k).sort();
}
