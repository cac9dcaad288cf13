// Places an event that arrives late (its `created` before the newest applied to its org) among the
// org's history, order-independently (docs/api.md, "Billing"): from the org's state right after
// the event just before it (recorded beside each event, migration 135), it applies the late event
// and then the events after it again. The work is that of the events after it (usually a few: a
// late delivery is seconds or minutes late), never the org's whole history. An org whose events
// were stored before states were recorded folds its history once, from the state before its
// first event, and records the states of its newest RECORDED_AT_ONCE events (writing them all
// would hold every delivery back for as long as an org has events; an event later than those
// folds the history again).
import type { Db } from '../store/db.ts';
import type { OrgBilling } from '../store/repositories/billing.ts';
import { billingHistoryRepo, type HistoryEvent } from '../store/repositories/billing-history.ts';
import { parseEvent, type ProviderEvent } from './event.ts';
import { compareKeys, isHandled, rankOf, transition, type EventKey, type TransitionContext } from './state-machine.ts';

/** An event of an org's history; `state`: the org's state right after it, once known. */
export interface Placed {
  id: string;
  event: ProviderEvent;
  key: EventKey;
  state?: OrgBilling | undefined;
}

export const keyOf = (event: ProviderEvent, receivedAt: Date, seq: bigint): EventKey => ({
  at: event.created ? new Date(event.created * 1000) : receivedAt,
  rank: rankOf(event.type),
  seq,
});

function fromStored(row: HistoryEvent): Placed | undefined {
  if (!isHandled(row.type)) return undefined;
  const parsed = parseEvent(row.raw_body);
  if (!parsed.ok) return undefined;
  return { id: row.id, event: parsed.event, key: keyOf(parsed.event, row.received_at, BigInt(row.seq)), state: row.stateAfter ?? undefined };
}

/** The newest events whose states a fold of the whole history records, and how many per statement. */
const RECORDED_AT_ONCE = 1000;
const STATES_PER_STATEMENT = 500;

/**
 * The org's state once `item` is placed among its history (`added`: its events applied in this
 * transaction, with their states, updated here). Records the states of the stored events it
 * applied again; `ownIds`, the events of this transaction, are not read from the table.
 */
export async function placeLate(
  tx: Db,
  org: { orgId: string; base: OrgBilling; added: Placed[] },
  item: Placed,
  ownIds: string[],
  ctx: Omit<TransitionContext, 'now'>,
): Promise<OrgBilling> {
  const near = await billingHistoryRepo.around(tx, org.orgId, ownIds, item.key.at);
  const stored = [...near.before, ...near.after].flatMap((row) => fromStored(row) ?? []);
  const known = [...stored, ...org.added];
  let prior: Placed | undefined;
  for (const e of known) if (compareKeys(e.key, item.key) < 0 && (!prior || compareKeys(e.key, prior.key) > 0)) prior = e;
  const start = prior?.state;
  let toApply = known.filter((e) => compareKeys(e.key, item.key) > 0);
  let storedIds = new Set(stored.map((e) => e.id));
  if (prior && !start) {
    // States not recorded yet: the whole history, once; the newest events' states are recorded.
    const all = (await billingHistoryRepo.all(tx, org.orgId, ownIds)).flatMap((row) => fromStored(row) ?? []);
    all.sort((a, b) => compareKeys(a.key, b.key));
    toApply = [...all, ...org.added];
    storedIds = new Set(all.slice(-RECORDED_AT_ONCE).map((e) => e.id));
    for (const e of stored) if (compareKeys(e.key, item.key) > 0) storedIds.add(e.id);
  }
  let state = start ?? org.base;
  const restated: { id: string; state: OrgBilling }[] = [];
  for (const e of [item, ...toApply].sort((a, b) => compareKeys(a.key, b.key))) {
    const t = transition(state, e.event, { ...ctx, now: e.key.at });
    if (t.outcome === 'applied') state = t.state;
    e.state = state;
    if (storedIds.has(e.id)) restated.push({ id: e.id, state });
  }
  for (let i = 0; i < restated.length; i += STATES_PER_STATEMENT) await billingHistoryRepo.setStates(tx, restated.slice(i, i + STATES_PER_STATEMENT));
  return state;
}
