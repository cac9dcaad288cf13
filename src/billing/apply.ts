// Applies payment-provider events to orgs inside a transaction, order-independently (docs/api.md,
// "Billing"): an org's state is what applying all its events in `created` order gives.
//
// An event newer than every one applied to its org (the usual case) is applied to the org's state
// as it is. One that is older is placed among the org's history (./late.ts): from the state right
// after the event before it, it and the events after it are applied again, up to the first that
// ends as it did. Each event keeps the org's state right after it. An event whose org is not known yet waits ('pending') and is
// applied when an event links its customer to an org.
import type { Db } from '../store/db.ts';
import { billingRepo, type EventOutcome, type LockedOrg, type OrgBilling, type StoredEvent } from '../store/repositories/billing.ts';
import type { AuditEntry } from '../store/repositories/audit.ts';
import { EventDataError, parseEvent, storable, type ProviderEvent } from './event.ts';
import { changedFields, compareKeys, isHandled, orgHints, transition } from './state-machine.ts';
import { keyOf, placeLate, type Placed } from './late.ts';

/** An event to apply: a delivery just claimed, or a stored event replayed. */
export interface Arrival {
  id: string;
  event: ProviderEvent;
  seq: bigint;
  receivedAt: Date;
  correlationId: string | null;
}

interface Keyed extends Placed {
  correlationId: string | null;
}

interface Working extends LockedOrg {
  versionStep: number;
  seatsUsed?: number;
  /** Events applied to it in this transaction, each with the org's state right after it. */
  added: Keyed[];
}

export interface Applied {
  /** One per arrival, in order. */
  outcomes: EventOutcome[];
  /** Stored pending events that an arrival linked to an org, and what became of them. */
  released: ({ id: string } & EventOutcome)[];
  audit: AuditEntry[];
  saves: { orgId: string; billing: OrgBilling; position: LockedOrg['position']; base: OrgBilling; versionStep: number }[];
}

function fromStored(row: StoredEvent): Keyed | undefined {
  const parsed = parseEvent(row.raw_body);
  if (!parsed.ok) return undefined;
  return { id: row.id, event: parsed.event, key: keyOf(parsed.event, row.received_at, BigInt(row.seq)), correlationId: row.correlation_id };
}

const message = (err: unknown) => storable(err instanceof Error ? err.message : String(err));

export async function applyEvents(tx: Db, arrivals: Arrival[], config: { gracePeriodS: number }): Promise<Applied> {
  const ownIds = arrivals.map((a) => a.id);
  const hints = arrivals.map((a) => {
    if (!isHandled(a.event.type)) return {};
    try {
      return orgHints(a.event.object);
    } catch (err) {
      if (err instanceof EventDataError) return err;
      throw err;
    }
  });
  const found = hints.flatMap((h) => (h instanceof Error ? [] : [h]));
  const locked = await billingRepo.lockOrgs(tx, {
    orgIds: found.flatMap((h) => (h.orgId ? [h.orgId] : [])),
    customerIds: found.flatMap((h) => (h.customerId ? [h.customerId] : [])),
  });
  const orgs = new Map<string, Working>(locked.map((o) => [o.orgId, { ...o, versionStep: 0, added: [] }]));
  const byCustomer = (customerId: string) => [...orgs.values()].find((o) => o.billing.providerCustomerId === customerId);
  const audit: AuditEntry[] = [];
  const released: Applied['released'] = [];
  /** Arrivals of this transaction still waiting, by index. */
  const waiting = new Map<number, { keyed: Keyed; customerId: string }>();
  const outcomes: EventOutcome[] = [];

  async function seatsUsed(w: Working): Promise<number> {
    w.seatsUsed ??= (await billingRepo.seatsUsed(tx, [w.orgId])).get(w.orgId) ?? 0;
    return w.seatsUsed;
  }

  /** Applies one event to an org: its outcome, the audit entry, and any events it releases. */
  async function applyTo(w: Working, item: Keyed): Promise<EventOutcome> {
    const before = w.billing;
    const last = w.position.at ? { at: w.position.at, rank: w.position.rank ?? 0 } : undefined;
    const inOrder = !last || compareKeys(item.key, last) >= 0;
    const needsSeats = !inOrder || item.event.type === 'customer.subscription.updated';
    const ctx = { gracePeriodS: config.gracePeriodS, now: item.key.at, seatsUsed: needsSeats ? await seatsUsed(w) : 0 };
    let after: OrgBilling;
    let reason: string | undefined;
    if (inOrder) {
      const t = transition(before, item.event, ctx);
      after = t.outcome === 'applied' ? t.state : before;
      if (t.outcome === 'ignored') reason = t.reason;
      w.position = { at: item.key.at, rank: item.key.rank };
      item.state = after;
    } else {
      after = await placeLate(tx, { orgId: w.orgId, base: w.base ?? before, current: before, added: w.added }, item, ownIds, ctx);
    }
    const changed = changedFields(before, after).map(String).sort();
    // Out of order, its place among the org's events decided its effect: none at all counts as ignored.
    if (!inOrder && changed.length === 0) reason = 'no change: in its place among the org’s events it leaves the org as it was';
    w.base ??= before;
    w.billing = after;
    w.added.push(item);
    // An event the state machine applies is audited (and counts a version) even when it changes
    // nothing, as a retried payment failure: the trail shows every event the org received.
    const outcome: EventOutcome =
      reason !== undefined
        ? { status: 'ignored', outcome: reason, orgId: w.orgId }
        : {
            status: 'applied',
            outcome: changed.length ? `changed ${changed.join(', ')}${inOrder ? '' : ' (the org’s events re-applied in created order)'}` : 'no change',
            orgId: w.orgId,
          };
    if (outcome.status === 'applied') {
      w.versionStep += 1;
      audit.push({
        orgId: w.orgId,
        correlationId: item.correlationId,
        actor: { type: 'paymentProvider', id: item.event.id },
        action: `billing.${item.event.type}`,
        targetId: w.orgId,
        changes: changed,
      });
    }
    const customer = w.billing.providerCustomerId;
    if (customer && customer !== before.providerCustomerId) await release(w, customer);
    return outcome;
  }

  /** A customer was just linked to an org: the events waiting for it are applied, oldest first. */
  async function release(w: Working, customerId: string): Promise<void> {
    const here = [...waiting].filter(([, p]) => p.customerId === customerId);
    for (const [i] of here) waiting.delete(i);
    const stored = (await billingRepo.pendingFor(tx, [customerId], ownIds)).flatMap((row) => {
      const keyed = fromStored(row);
      return keyed ? [{ keyed, index: undefined as number | undefined }] : [];
    });
    const all = [...here.map(([index, p]) => ({ keyed: p.keyed, index })), ...stored].sort((a, b) => compareKeys(a.keyed.key, b.keyed.key));
    for (const { keyed, index } of all) {
      let outcome: EventOutcome;
      try {
        outcome = await applyTo(w, keyed);
      } catch (err) {
        if (!(err instanceof EventDataError)) throw err;
        outcome = { status: 'failed', outcome: null, orgId: null, error: message(err), errorCode: 'EVENT_DATA' };
      }
      if (index === undefined) released.push({ id: keyed.id, ...outcome });
      else outcomes[index] = outcome;
    }
  }

  for (const [i, a] of arrivals.entries()) {
    const keyed: Keyed = { id: a.id, event: a.event, key: keyOf(a.event, a.receivedAt, a.seq), correlationId: a.correlationId };
    if (!isHandled(a.event.type)) {
      outcomes[i] = { status: 'ignored', outcome: `event type ${a.event.type} changes nothing`, orgId: null };
      continue;
    }
    const h = hints[i] ?? {};
    if (h instanceof Error) {
      outcomes[i] = { status: 'failed', outcome: null, orgId: null, error: message(h), errorCode: 'EVENT_DATA' };
      continue;
    }
    const w = (h.orgId ? orgs.get(h.orgId.toLowerCase()) : undefined) ?? (h.customerId ? byCustomer(h.customerId) : undefined);
    if (!w) {
      if (h.customerId) {
        waiting.set(i, { keyed, customerId: h.customerId });
        outcomes[i] = { status: 'pending', outcome: 'waiting for an event that links its customer to an org', orgId: null, customerId: h.customerId };
      } else {
        const error = `no org for this event (metadata.orgId ${h.orgId ? 'names no org' : 'absent'}, no customer to wait for); replay it once the org exists`;
        outcomes[i] = { status: 'failed', outcome: null, orgId: null, error, errorCode: 'NO_ORG' };
      }
      continue;
    }
    try {
      outcomes[i] = await applyTo(w, keyed);
    } catch (err) {
      if (!(err instanceof EventDataError)) throw err;
      outcomes[i] = { status: 'failed', outcome: null, orgId: null, error: message(err), errorCode: 'EVENT_DATA' };
    }
  }

  // The state after each event applied here, as it stands once they all are, goes with its outcome.
  const states = new Map([...orgs.values()].flatMap((w) => w.added.map((e) => [e.id, e.state] as const)));
  for (const [i, a] of arrivals.entries()) {
    const o = outcomes[i];
    if (o && o.orgId) o.stateAfter = states.get(a.id);
  }
  for (const r of released) if (r.orgId) r.stateAfter = states.get(r.id);
  const saves = [...orgs.values()]
    .filter((w) => w.added.length > 0)
    .map((w) => ({ orgId: w.orgId, billing: w.billing, position: w.position, base: w.base ?? w.billing, versionStep: w.versionStep }));
  return { outcomes, released, audit, saves };
}
