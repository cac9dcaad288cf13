// The org subscription state machine of spec section 3, as a pure function: (state, event, now,
// config) → new state and what changed. Effects (the database, the audit trail) are applied by
// the billing service in one transaction. Field locations follow Stripe's event shapes.

export interface BillingState {
  subscriptionStatus: string;
  plan: string;
  priceVersion: string | null;
  seats: number;
  seatsUsed: number;
  overSeatLimit: boolean;
  currentPeriodEnd: Date | null;
  gracePeriodEndsAt: Date | null;
  providerCustomerId: string | null;
  providerSubscriptionId: string | null;
  /** `created` of the newest event applied. */
  billingEventAt: Date | null;
}

export interface ProviderEvent {
  id: string;
  type: string;
  /** Unix seconds; absent in hand-made events. */
  created?: number | undefined;
  object: Record<string, any>;
}

export const HANDLED_EVENTS = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
] as const;

export type Transition =
  | { outcome: 'applied'; state: BillingState; changed: (keyof BillingState)[] }
  | { outcome: 'ignored'; reason: string };

const ignored = (reason: string): Transition => ({ outcome: 'ignored', reason });

const toDate = (unix: unknown): Date | null => (typeof unix === 'number' && unix > 0 ? new Date(unix * 1000) : null);

/** Seats, plan, price and period end of a subscription object (its first item for newer API versions). */
export function subscriptionFacts(sub: Record<string, any>) {
  const item = sub.items?.data?.[0] ?? {};
  const price = item.price ?? sub.plan ?? {};
  return {
    status: typeof sub.status === 'string' ? sub.status : undefined,
    seats: Number.isInteger(item.quantity) ? (item.quantity as number) : Number.isInteger(sub.quantity) ? (sub.quantity as number) : undefined,
    plan: (price.lookup_key as string | undefined) ?? (price.product as string | undefined),
    priceVersion: price.id as string | undefined,
    currentPeriodEnd: toDate(sub.current_period_end ?? item.current_period_end),
    subscriptionId: typeof sub.id === 'string' ? sub.id : undefined,
    customerId: typeof sub.customer === 'string' ? sub.customer : undefined,
  };
}

export function transition(
  state: BillingState,
  event: ProviderEvent,
  ctx: { now: Date; gracePeriodS: number },
): Transition {
  if (!(HANDLED_EVENTS as readonly string[]).includes(event.type)) return ignored(`event type ${event.type} changes nothing`);
  const created = toDate(event.created);
  if (created && state.billingEventAt && created < state.billingEventAt) {
    return ignored('older than the last event applied to this org (delivered out of order)');
  }
  const next: BillingState = { ...state, billingEventAt: created ?? state.billingEventAt };
  const grace = () => new Date(ctx.now.getTime() + ctx.gracePeriodS * 1000);
  const o = event.object;
  const customer = typeof o.customer === 'string' ? o.customer : undefined;
  if (customer) next.providerCustomerId = customer;

  switch (event.type) {
    case 'checkout.session.completed': {
      next.subscriptionStatus = 'active';
      next.gracePeriodEndsAt = null;
      const sub = typeof o.subscription === 'object' && o.subscription ? o.subscription : undefined;
      if (typeof o.subscription === 'string') next.providerSubscriptionId = o.subscription;
      const periodEnd = toDate(o.current_period_end) ?? (sub ? subscriptionFacts(sub).currentPeriodEnd : null);
      if (periodEnd) next.currentPeriodEnd = periodEnd;
      if (sub) {
        const facts = subscriptionFacts(sub);
        next.providerSubscriptionId = facts.subscriptionId ?? next.providerSubscriptionId;
        if (facts.plan) next.plan = facts.plan;
        if (facts.priceVersion) next.priceVersion = facts.priceVersion;
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
        if (event.type === 'customer.subscription.updated' && changedSeats) next.overSeatLimit = state.seatsUsed > facts.seats;
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
  const changed = (Object.keys(next) as (keyof BillingState)[]).filter((k) => !same(next[k], state[k]) && k !== 'billingEventAt');
  return { outcome: 'applied', state: next, changed };
}

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return Object.is(a, b);
}

/** Where an event says which org it is about (DECISIONS: metadata.orgId, client_reference_id, customer). */
export function orgHints(object: Record<string, any>): { orgId?: string; customerId?: string } {
  const metadataOrg =
    object.metadata?.orgId ?? object.parent?.subscription_details?.metadata?.orgId ?? object.subscription_details?.metadata?.orgId;
  const orgId = typeof metadataOrg === 'string' ? metadataOrg : typeof object.client_reference_id === 'string' ? object.client_reference_id : undefined;
  const customerId = typeof object.customer === 'string' ? object.customer : undefined;
  return { ...(orgId ? { orgId } : {}), ...(customerId ? { customerId } : {}) };
}
