// Fairness of an instance's delivery slots (docs/webhooks.md, "Slow endpoints and fairness";
// DECISIONS wave 3, "Fair queue"). The drain queue claims round-robin across orgs (jobsRepo.claim),
// but a drain to an endpoint that never answers keeps its slot for as long as each attempt waits
// (the 10-s timeout), so round-robin alone let one org with many such endpoints take every slot:
//
// - an org runs at most `perOrg` of the instance's slots at once (half): a drain beyond that is put
//   back on the queue for DEFER_MS (JobDeferredError: its attempt not counted), so a second org
//   always finds a free slot at once, whatever the first one's endpoints do;
// - a drain of an endpoint this instance drains already is put back too (the running drain takes
//   the endpoint's new deliveries), without counting as waiting;
// - a drain that has held its slot for SLICE_MS gives it back (takes no more deliveries, ends once
//   the attempts in flight have, and queues itself again) when a drain of another endpoint waits for
//   a slot: one of its own org's that was put back, or any drain while every slot of the instance is
//   taken. A slot is therefore waited for at most as long as one attempt lasts (the timeout).
//
// Hand-written: the counts are this instance's, in memory; the queue (src/jobs) knows no per-org cap.
import type { Logger } from '../log.ts';

/** How long a drain at its org's cap waits before the queue offers it again. */
export const DEFER_MS = 1_000;
/** How long a drain keeps its slot before it gives it back to a drain that waits. */
export const SLICE_MS = 1_000;
/** How often, at most, the database is asked whether a drain waits (only while every slot is taken). */
const WAITING_CHECK_MS = 1_000;

export interface SlotLease {
  /** True once the drain should give its slot back (it has had its slice and another drain waits). */
  shouldYield(): Promise<boolean>;
  release(): void;
}

export interface DeliverySlots {
  /** A slot for a drain, or why not: the org runs its share already, or the endpoint is drained here already. */
  enter(orgId: string, endpointId: string): SlotLease | 'org-full' | 'endpoint-busy';
}

export function createDeliverySlots(deps: {
  perOrg: number;
  /** Whether every slot of this instance's queue is taken. */
  saturated: () => boolean;
  /** Whether a drain job is due and unclaimed, for an endpoint no worker sends to (the database's view, all instances). */
  anyWaiting: () => Promise<boolean>;
  logger: Logger;
}): DeliverySlots {
  const running = new Map<string, number>();
  const endpoints = new Set<string>();
  /** When a drain of the org was last put back at its cap (performance.now()). */
  const deferredAt = new Map<string, number>();
  /** The database's last answer, shared by every drain that asks within WAITING_CHECK_MS. */
  let waiting: { answer: Promise<boolean>; at: number } | undefined;

  const othersWaiting = (): Promise<boolean> => {
    if (!deps.saturated()) return Promise.resolve(false);
    if (!waiting || performance.now() - waiting.at >= WAITING_CHECK_MS) {
      const answer = deps.anyWaiting().catch((err: unknown) => {
        deps.logger.warn({ err }, 'could not tell whether webhook drains wait for a slot');
        return false;
      });
      waiting = { answer, at: performance.now() };
    }
    return waiting.answer;
  };

  return {
    enter(orgId, endpointId) {
      if (endpoints.has(endpointId)) return 'endpoint-busy';
      const held = running.get(orgId) ?? 0;
      if (held >= deps.perOrg) {
        deferredAt.set(orgId, performance.now());
        return 'org-full';
      }
      running.set(orgId, held + 1);
      endpoints.add(endpointId);
      const since = performance.now();
      let released = false;
      return {
        async shouldYield() {
          const now = performance.now();
          if (now - since < SLICE_MS) return false;
          // One of its own org's drains was put back lately (it comes back every DEFER_MS while it waits).
          if ((deferredAt.get(orgId) ?? Number.NEGATIVE_INFINITY) > now - 2 * DEFER_MS) return true;
          return othersWaiting();
        },
        release() {
          if (released) return;
          released = true;
          endpoints.delete(endpointId);
          const left = (running.get(orgId) ?? 1) - 1;
          if (left > 0) running.set(orgId, left);
          else {
            running.delete(orgId);
            if ((deferredAt.get(orgId) ?? 0) <= performance.now() - 2 * DEFER_MS) deferredAt.delete(orgId);
          }
        },
      };
    },
  };
}
