// `campaign.started` and `campaign.ended` (outbound webhooks, docs/webhooks.md). A campaign's status
// follows from its times and the clock (choose.ts's statusOf), so no write happens when it starts or
// ends: every ANNOUNCE_EVERY_MS each instance claims, in one transaction, the campaigns whose status
// differs from the one their events last announced (the repository's claimTransitions moves it in
// the same statement, SKIP LOCKED: each transition is claimed by one instance, once) and writes
// their events through the outbox in that transaction. So an event exists exactly when its
// transition was recorded, and is delivered at least once, within a tick (plus delivery) of the time.
//
// To active (from scheduled, or from ended when its end was moved later): `campaign.started`.
// Active to ended: `campaign.ended`. Scheduled to ended (its whole run fell between two ticks, or
// both times were moved into the past): both, in that order. Back to scheduled (its start moved
// later): nothing until it starts. A campaign created already ended is stored as announced (no
// events); a deleted one is not announced any more (its `audit.event` says so).
import type { Db } from '../store/db.ts';
import { campaignsRepo } from '../store/repositories/campaigns.ts';
import { toCampaign } from './service.ts';

/** An event for the outbox of outbound webhooks. */
export interface CampaignEvent {
  orgId: string;
  type: string;
  at: Date;
  data: unknown;
}

/**
 * Writes events in the caller's transaction, for the endpoints that subscribe to them: the outbound
 * webhooks' outbox (src/outbound-webhooks/events.ts), handed in by deps.ts (the outbound webhooks
 * import the templates, which import render, which imports campaigns: no import back).
 */
export type EmitEvents = (tx: Db, events: CampaignEvent[]) => Promise<void>;

export const ANNOUNCE_EVERY_MS = 10_000;

/** One tick: claims the campaigns' transitions by `now` and writes their events; answers how many events. */
export async function announceTransitions(db: Db, emit: EmitEvents, now: Date): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const rows = (await campaignsRepo.claimTransitions(tx, now)).sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq)));
    const events: CampaignEvent[] = [];
    for (const row of rows) {
      const event = (type: string): CampaignEvent => ({ orgId: row.org_id, type, at: now, data: { ...toCampaign(row, now), correlationId: null } });
      const to = row.announced_status;
      if (to === 'active' || (to === 'ended' && row.was === 'scheduled')) events.push(event('campaign.started'));
      if (to === 'ended') events.push(event('campaign.ended'));
    }
    if (events.length > 0) await emit(tx, events);
    return events.length;
  });
}
