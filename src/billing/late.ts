// Places an event that arrives late (its `created` before the newest applied to its org) among the
// org's history, order-independently (docs/api.md, "Billing"): from the org's state right after
// the event just before it (recorded beside each event, migration 136), it applies the late event
// and then the events after it again, in order (read a page at a time from the index of migration
// 141), until one of them ends in the state recorded for it: from there on nothing differs (each
// state follows from the one before and the event alone), so the events after it are neither read
// nor written again. A late event that changes nothing where it stands (a paid invoice while
// active, a retried failure) costs one read; one that changes something costs the events up to
// where the history forgets it (usually the next event of the same kind), never the org's whole
// history. An org whose events were stored before states were recorded folds its history once,
// from the state before its first event, and records the states of its newest RECORDED_AT_ONCE
// events (writing them all would hold every delivery back for as long as an org has events; an
// event later than those folds the history again).
import type { Db } from '../store/db.ts';
import type { OrgBilling } from '../store/repositories/billing.ts';
import { billingHistoryRepo, type HistoryEvent } from '../store/repositories/billing-history.ts';
import { parseEvent, type ProviderEvent } from './event.ts';
import { changedFields, compareKeys, isHandled, rankOf, transition, type EventKey, type TransitionContext } from './state-machine.ts';

/** An event of an org's history; `state`: the org's state right after it, once known. */
export interface Placed {
  id: string;
  event: ProviderEvent;
  key: EventKey;
  state?: OrgBilling | undefined;
}

/** An org as placing a late event needs it. */
export interface History {
  orgId: string;
  /** Its state before its first event. */
  base: OrgBilling;
  /** Its state now: right after its newest event. */
  current: OrgBilling;
  /** Its events applied in this transaction (not read from the table), with their states, updated here. */
  added: Placed[];
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
/** The stored events after a late one read at a time: it rarely takes more than a few to converge. */
const PAGE = 16;

const same = (a: OrgBilling, b: OrgBilling) => changedFields(a, b).length === 0;

/** Applies one event to a state (an ignored event leaves it as it was). */
function applyOne(state: OrgBilling, e: Placed, ctx: Omit<TransitionContext, 'now'>): OrgBilling {
  const t = transition(state, e.event, { ...ctx, now: e.key.at });
  return t.outcome === 'applied' ? t.state : state;
}

/**
 * The org's state once `item` is placed among its history. Records the states of the stored
 * events it applied again; `ownIds`, the events of this transaction, are not read from the table.
 */
export async function placeLate(tx: Db, org: History, item: Placed, ownIds: string[], ctx: Omit<TransitionContext, 'now'>): Promise<OrgBilling> {
  let prior: { key: EventKey; state?: OrgBilling | undefined } | undefined;
  const stored = await billingHistoryRepo.before(tx, org.orgId, ownIds, item.key);
  if (stored) prior = { key: stored, state: stored.stateAfter ?? undefined };
  for (const e of org.added) if (compareKeys(e.key, item.key) < 0 && (!prior || compareKeys(e.key, prior.key) > 0)) prior = e;
  // States not recorded yet: the whole history, once.
  if (prior && !prior.state) return foldWhole(tx, org, item, ownIds, ctx);
  const start = prior?.state ?? org.base;
  let state = applyOne(start, item, ctx);
  item.state = state;
  // Where it stands it changes nothing: every event after it ends as it did.
  if (same(state, start)) return org.current;
  const restated: { id: string; state: OrgBilling }[] = [];
  let converged = false;
  for await (const { e, isStored } of later(tx, org, item, ownIds)) {
    state = applyOne(state, e, ctx);
    if (e.state && same(state, e.state)) {
      converged = true;
      break;
    }
    e.state = state;
    if (isStored) restated.push({ id: e.id, state });
  }
  await record(tx, restated);
  return converged ? org.current : state;
}

/** The events after `item`, in order: the stored ones a page at a time, merged with this transaction's. */
async function* later(tx: Db, org: History, item: Placed, ownIds: string[]): AsyncGenerator<{ e: Placed; isStored: boolean }> {
  const added = org.added.filter((e) => compareKeys(e.key, item.key) > 0).sort((a, b) => compareKeys(a.key, b.key));
  let from: { key: EventKey } | { afterId: string } = { key: item.key };
  for (;;) {
    const rows = await billingHistoryRepo.after(tx, org.orgId, ownIds, from, PAGE);
    for (const row of rows) {
      const e = fromStored(row);
      if (!e) continue;
      while (added[0] && compareKeys(added[0].key, e.key) < 0) yield { e: added.shift() as Placed, isStored: false };
      yield { e, isStored: true };
    }
    const last = rows.at(-1);
    if (!last || rows.length < PAGE) break;
    from = { afterId: last.id };
  }
  for (const e of added) yield { e, isStored: false };
}

async function record(tx: Db, restated: { id: string; state: OrgBilling }[]): Promise<void> {
  for (let i = 0; i < restated.length; i += STATES_PER_STATEMENT) await billingHistoryRepo.setStates(tx, restated.slice(i, i + STATES_PER_STATEMENT));
}

/**
 * An org whose events were stored before states were recorded: its whole history folded from the
 * state before its first event, the states of its newest events (and those after `item`) recorded.
 */
async function foldWhole(tx: Db, org: History, item: Placed, ownIds: string[], ctx: Omit<TransitionContext, 'now'>): Promise<OrgBilling> {
  const all = (await billingHistoryRepo.all(tx, org.orgId, ownIds)).flatMap((row) => fromStored(row) ?? []);
  all.sort((a, b) => compareKeys(a.key, b.key));
  const storedIds = new Set(all.slice(-RECORDED_AT_ONCE).map((e) => e.id));
  for (const e of all) if (compareKeys(e.key, item.key) > 0) storedIds.add(e.id);
  let state = org.base;
  const restated: { id: string; state: OrgBilling }[] = [];
  for (const e of [item, ...all, ...org.added].sort((a, b) => compareKeys(a.key, b.key))) {
    state = applyOne(state, e, ctx);
    e.state = state;
    if (storedIds.has(e.id)) restated.push({ id: e.id, state });
  }
  await record(tx, restated);
  return state;
}
