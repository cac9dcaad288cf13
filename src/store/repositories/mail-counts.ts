// Mail caps' counters (src/mail/caps.ts): one row per subject and calendar hour.
import { sql } from 'kysely';
import type { Db } from '../db.ts';

export type MailCountKind = 'org' | 'resend';

export const mailCountsRepo = {
  /**
   * Takes one of the hour's `cap` slots of the subject, atomically (instances taking at the same
   * time never pass the cap): true when taken, false when the hour's slots are all gone.
   */
  async take(db: Db, kind: MailCountKind, subjectId: string, hour: Date, cap: number): Promise<boolean> {
    const r = await sql<{ count: number }>`
      insert into mail_counts as c (kind, subject_id, hour, count) values (${kind}, ${subjectId}, ${hour.toISOString()}::timestamptz, 1)
      on conflict (kind, subject_id, hour) do update set count = c.count + 1 where c.count < ${cap}
      returning count`.execute(db);
    const count = r.rows[0]?.count;
    // The first slot of an hour: past hours' rows are of no more use.
    if (count === 1) await db.deleteFrom('mail_counts').where('kind', '=', kind).where('subject_id', '=', subjectId).where('hour', '<', hour).execute();
    return count !== undefined;
  },
};
