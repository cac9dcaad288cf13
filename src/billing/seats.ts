import { AppError } from '../kernel/errors.ts';
import type { Db } from '../store/db.ts';
import { billingRepo } from '../store/repositories/billing.ts';

/**
 * The seat cap (docs/guide.md, "Limits"): creating a user when the live users fill every seat is 402.
 * Runs inside the creating transaction with the org row locked, so two creations cannot both take
 * the last seat.
 */
export async function requireFreeSeat(tx: Db, orgId: string): Promise<void> {
  const [org] = await billingRepo.lockOrgs(tx, { orgIds: [orgId], customerIds: [] });
  if (!org) throw new AppError('NOT_FOUND', 'Organisation not found.');
  const seats = org.seatsOverride ?? org.billing.seats;
  const used = (await billingRepo.seatsUsed(tx, [orgId])).get(orgId) ?? 0;
  if (used >= seats) {
    throw new AppError(
      'PAYMENT_REQUIRED',
      `All ${seats} seats of the plan are in use (${used} users): add seats to the subscription, or delete a user, to create another.`,
      { details: { blockedBy: 'seats', seats: { limit: seats, used } } },
    );
  }
}
