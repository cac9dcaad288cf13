// Every successful write records an audit entry in the same transaction as the change
// (docs/guide.md, "Audit trail"), carrying the request's correlation id and the changed field names.
// This is the one place audit entries are written: what must happen with every entry, in its
// transaction, listens here (the outbound webhooks' events, src/outbound-webhooks/module.ts sets it;
// a capability this platform folder may not import).
import type { Db } from '../store/db.ts';
import { auditRepo, type AuditEntry } from '../store/repositories/audit.ts';
import { actorOf, type Principal } from '../kernel/principal.ts';
import type { ActorType, AuditRow } from '../store/schema.ts';

/** Runs in the transaction of the entries it is given, after they are written. */
export type AuditListener = (tx: Db, rows: AuditRow[]) => Promise<void>;
let listener: AuditListener | undefined;

/** Sets what every written entry is handed to (one listener; setting it again replaces it). */
export function listenToAudit(given: AuditListener): void {
  listener = given;
}

/** Who wrote, for the entry: the request's principal, or a named actor (a directory sync, a job). */
export type AuditContext = { orgId: string | null; correlationId: string | null; actor?: { type: ActorType; id: string }; principal?: Principal };

/** What a write knows about the request that asked for it. */
export interface WriteContext {
  orgId: string;
  principal: Principal;
  correlationId: string;
}

export function recordAudit(tx: Db, ctx: AuditContext, entry: { action: string; targetId: string | null; changes?: string[] }): Promise<void> {
  const actor = ctx.actor ?? (ctx.principal ? actorOf(ctx.principal) : { type: 'system' as const, id: 'system' });
  return recordAuditEntries(tx, [{ orgId: ctx.orgId, actor, correlationId: ctx.correlationId, ...entry }]);
}

/** Several entries in one statement (billing's batches), handed to the listener. */
export async function recordAuditEntries(tx: Db, entries: AuditEntry[]): Promise<void> {
  const rows = await auditRepo.insertMany(tx, entries);
  if (listener && rows.length > 0) await listener(tx, rows);
}

/** The names of the fields a patch sets (never their values: they may be secret). */
export function changedFields(patch: object): string[] {
  return Object.entries(patch)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k)
    .sort();
}
