// The embedded database's autovacuum. A PostgreSQL server vacuums and analyzes its tables in
// background processes; PGlite is one backend with none, so without this nothing ever does:
// - a row updated or deleted leaves its old version behind for good, and the space is never used
//   again, so a table with churn grows without end. The job queue is the worst case: every job is
//   inserted, claimed, finished and purged, and after 50,000 jobs an empty `jobs` table held 11 MB
//   and an idle queue's poll cost 21 ms of CPU instead of 1.4 (BENCHMARKS.md, "The embedded
//   database's upkeep");
// - the planner has no statistics of a table until it is analyzed;
// - the oldest unfrozen transaction ID only ages, and PostgreSQL stops taking writes 3 million
//   transactions short of its wraparound.
// So the service does autovacuum's work itself, on PostgreSQL's own thresholds
// (store/repositories/upkeep.ts), every `intervalMs`: one table at a time, each statement on the one
// thread it shares with requests, with a turn of the event loop between tables. After a start the
// first round vacuums every table once (the counters it decides by start at zero with the
// process); on a table whose pages are all marked visible that costs ~1 ms.
import type { Logger } from '../log.ts';
import { every } from '../lib/every.ts';
import type { Db } from '../store/database.ts';
import { upkeepRepo, type TableDue } from '../store/repositories/upkeep.ts';

export interface Upkeep {
  /** One round: the first vacuums every table, the later ones the tables past a threshold. Answers what it ran. */
  round(): Promise<Vacuumed[]>;
  /** Starts the rounds every `intervalMs` (the first one interval after the start); answers their stop. */
  start(): () => Promise<void>;
}

/** A table's statement of a round, and how long it held the thread. */
export type Vacuumed = TableDue & { ms: number };

export function createUpkeep(deps: { db: Db; logger: Logger; intervalMs: number }): Upkeep {
  const { db, logger, intervalMs } = deps;
  let first = true;
  const round = async (): Promise<Vacuumed[]> => {
    const tables = first ? await upkeepRepo.all(db) : await upkeepRepo.due(db);
    first = false;
    const done: Vacuumed[] = [];
    for (const t of tables) {
      // A turn for the requests waiting behind the statement before.
      await new Promise((resolve) => setImmediate(resolve));
      const started = performance.now();
      await upkeepRepo.run(db, t);
      const ms = performance.now() - started;
      done.push({ ...t, ms });
      // A long one held every request for as long: worth a line at the default level.
      const fields = { table: t.table, vacuum: t.vacuum, analyze: t.analyze, ms: Math.round(ms) };
      if (ms >= 100) logger.info(fields, 'embedded database: a long vacuum');
      else logger.debug(fields, 'embedded database: vacuumed');
    }
    return done;
  };
  return {
    round,
    start: () => every(intervalMs, round, { logger, message: 'embedded database: the upkeep failed; trying again at the next round' }),
  };
}
