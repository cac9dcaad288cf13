// Mail caps (DECISIONS wave 3, "Mail caps"): an org sends at most MAIL_PER_ORG_PER_HOUR mails a
// calendar hour (UTC), past it its mails wait in the queue for the next hour rather than fail; an
// invitation to one user can be resent RESENDS_PER_HOUR times an hour, past it the resend route
// answers 429 `details.scope` `mail`. Counted in the database (src/store/repositories/mail-counts.ts),
// so every instance sees one count.
import type { Db } from '../store/db.ts';
import { mailCountsRepo } from '../store/repositories/mail-counts.ts';
import { AppError } from '../kernel/errors.ts';

export const RESENDS_PER_HOUR = 5;

const HOUR_MS = 3600_000;
/** The start of the calendar hour of `at`. */
export const hourOf = (at: Date): Date => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
/** Milliseconds until the next calendar hour. */
export const untilNextHour = (at: Date): number => hourOf(at).getTime() + HOUR_MS - at.getTime();

/** Takes one of the org's mail slots of this hour; false when they are all gone (the mail waits). */
export function takeOrgMailSlot(db: Db, orgId: string, now: Date, perHour: number): Promise<boolean> {
  return mailCountsRepo.take(db, 'org', orgId, hourOf(now), perHour);
}

/** In the resending transaction: one of the user's resends of this hour, or 429 `details.scope` `mail`. */
export async function takeResend(tx: Db, userId: string, now: Date): Promise<void> {
  if (await mailCountsRepo.take(tx, 'resend', userId, hourOf(now), RESENDS_PER_HOUR)) return;
  const retryAfterS = Math.ceil(untilNextHour(now) / 1000);
  throw new AppError('TOO_MANY_REQUESTS', `This invitation was resent ${RESENDS_PER_HOUR} times this hour: retry in ${retryAfterS} seconds.`, {
    details: { scope: 'mail', retryAfterS },
  });
}
