// The org subscription state machine (docs/guide.md, "Billing states"), as pure functions: (state, event) → new
// state and what changed, and the fold that makes billing order-independent (docs/api.md,
// "Billing"): an org's state is what applying all its events in `created` order gives, a tie
// broken by the order of HANDLED_EVENTS. Effects (the database, the audit trail) are applied by the
// billing service in one transaction. Field locations follow Stripe's event shapes, before and
// after its 2025-03-31 API version.
import type { OrgBilling } from '../store/repositories/billing.ts';
import { textField, type ProviderEvent } from './event.ts';

export type BillingState = OrgBilling;

/** In the order that breaks ties of `created` (docs/api.md, "Billing"). */
export const HANDLED_EVENTS = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
] as const;

export const isHandled = (type: string) => (HANDLED_EVENTS as readonly string[]).includes(type);

export interface TransitionContext {
  /** Live users of the org: the over-limit recomputation of a subscription update needs them. */
  seatsUsed: number;
  gracePeriodS: number;
  /** When the event has no `created` (hand-made events). */
  now: Date;
}

export type Transition = { outcome: 'applied'; state: BillingState; changed: (keyof BillingState)[] } | { outcome: 'ignored'; reason: string };

const ignored = (reason: string): Transition => ({ outcome: 'ignored', reason });

const toDate = (unix: unknown): Date | null => (typeof unix === 'number' && unix > 0 ? new Date(unix * 1000) : null);

/** Seats, plan, price and period end of a subscription object (its first item for newer API versions). */
export function subscriptionFacts(sub: Record<string, any>, at = 'data.object') {
  const item = sub.items?.data?.[0] ?? {};
  const price = item.price ?? sub.plan ?? {};
  return {
    status: textField(sub.status, `${at}.status`),
    seats: Number.isInteger(item.quantity) ? (item.quantity as number) : Number.isInteger(sub.quantity) ? (sub.quantity as number) : undefined,
    plan: textField(price.lookup_key, `${at}.items.data[0].price.lookup_key`) ?? textField(price.product, `${at}.items.data[0].price.product`),
    priceVersion: textField(price.id, `${at}.items.data[0].price.id`),
    currentPeriodEnd: toDate(sub.current_period_end ?? item.current_period_end),
    subscriptionId: textField(sub.id, `${at}.id`),
  };
}

/**
 * When the event happened: its `created`, else when it was received. Grace periods count from it,
 * so applying the same events later, or again, gives the same dates.
 */
export const eventTime = (event: ProviderEvent, now: Date): Date => toDate(event.created) ?? now;

export function transition(state: BillingState, event: ProviderEvent, ctx: TransitionContext): Transition {
  if (!isHandled(event.type)) return ignored(`event type ${event.type} changes nothing`);
  const next: BillingState = { ...state };
  const grace = () => new Date(eventTime(event, ctx.now).getTime() + ctx.gracePeriodS * 1000);
  const o = event.object;
  const customer = textField(o.customer, 'data.object.customer');
  if (customer) next.providerCustomerId = customer;

  switch (event.type) {
    case 'checkout.session.completed': {
      next.subscriptionStatus = 'active';
      next.gracePeriodEndsAt = null;
      const sub = typeof o.subscription === 'object' && o.subscription ? o.subscription : undefined;
      const subscriptionId = textField(o.subscription, 'data.object.subscription');
      if (subscriptionId) next.providerSubscriptionId = subscriptionId;
      // Plan, price and period come from subscription events: a checkout fills them only while
      // none has (whichever arrives first, the result is the same).
      const periodEnd = toDate(o.current_period_end) ?? (sub ? subscriptionFacts(sub, 'data.object.subscription').currentPeriodEnd : null);
      if (periodEnd && !state.currentPeriodEnd) next.currentPeriodEnd = periodEnd;
      if (sub) {
        const facts = subscriptionFacts(sub, 'data.object.subscription');
        next.providerSubscriptionId = facts.subscriptionId ?? next.providerSubscriptionId;
        if (!state.priceVersion && facts.priceVersion) {
          next.priceVersion = facts.priceVersion;
          if (facts.plan) next.plan = facts.plan;
        }
      }
      break;
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated': {
      const facts = subscriptionFacts(o);
      if (facts.status) next.subscriptionStatus = facts.status;
      if (facts.plan) next.plan = facts.plan;
      if (facts.priceVersion) next.priceVersion = facts.priceVersion;
      if (facts.currentPeriodEnd) next.currentPeriodEnd = facts.currentPeriodEnd;
      if (facts.subscriptionId) next.providerSubscriptionId = facts.subscriptionId;
      if (facts.seats !== undefined) {
        const changedSeats = facts.seats !== state.seats;
        next.seats = facts.seats;
        // Spec rule 4: the over-limit recomputation runs only on an update that changes the quantity.
        if (event.type === 'customer.subscription.updated' && changedSeats) next.overSeatLimit = ctx.seatsUsed > facts.seats;
      }
      if (facts.status === 'active' || facts.status === 'trialing') next.gracePeriodEndsAt = null;
      break;
    }
    case 'customer.subscription.deleted':
      next.subscriptionStatus = 'canceled';
      next.gracePeriodEndsAt = grace();
      break;
    case 'invoice.paid':
      if (state.subscriptionStatus !== 'past_due') return ignored(`invoice paid while ${state.subscriptionStatus}: nothing to change`);
      next.subscriptionStatus = 'active';
      next.gracePeriodEndsAt = null;
      break;
    case 'invoice.payment_failed':
      next.subscriptionStatus = 'past_due';
      // Retried payments fail again: the grace that already runs is not restarted.
      if (!(state.subscriptionStatus === 'past_due' && state.gracePeriodEndsAt)) next.gracePeriodEndsAt = grace();
      break;
  }
  return { outcome: 'applied', state: next, changed: changedFields(state, next) };
}

export function changedFields(before: BillingState, after: BillingState): (keyof BillingState)[] {
  return (Object.keys(after) as (keyof BillingState)[]).filter((k) => !same(after[k], before[k]));
}

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return Object.is(a, b);
}

/** Where an event stands in an org's history: `created` (else received), the table's order, arrival. */
export interface EventKey {
  at: Date;
  rank: number;
  seq: bigint;
}

export const rankOf = (type: string) => (HANDLED_EVENTS as readonly string[]).indexOf(type);

export function compareKeys(a: { at: Date; rank: number; seq?: bigint }, b: { at: Date; rank: number; seq?: bigint }): number {
  const byTime = a.at.getTime() - b.at.getTime();
  if (byTime !== 0) return byTime;
  if (a.rank !== b.rank) return a.rank - b.rank;
  // Same second, same kind: the order of arrival is all there is to go by.
  return a.seq === undefined || b.seq === undefined ? 0 : a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0;
}

/** The state that applying every event, in key order, to the state before the first gives. */
export function fold(base: BillingState, events: { event: ProviderEvent; key: EventKey }[], ctx: TransitionContext): BillingState {
  let state = base;
  for (const { event, key } of [...events].sort((a, b) => compareKeys(a.key, b.key))) {
    const t = transition(state, event, { ...ctx, now: key.at });
    if (t.outcome === 'applied') state = t.state;
  }
  return state;
}

/** Where an event says which org it is about: metadata.orgId, client_reference_id, customer (docs/guide.md, "Billing states"). */
export function orgHints(object: Record<string, any>): { orgId?: string; customerId?: string } {
  const metadataOrg = object.metadata?.orgId ?? object.parent?.subscription_details?.metadata?.orgId ?? object.subscription_details?.metadata?.orgId;
  const orgId = textField(metadataOrg, 'metadata.orgId') ?? textField(object.client_reference_id, 'data.object.client_reference_id');
  const customerId = textField(object.customer, 'data.object.customer');
  return { ...(orgId ? { orgId } : {}), ...(customerId ? { customerId } : {}) };
}
