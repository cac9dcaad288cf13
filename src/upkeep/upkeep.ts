// The embedded database's autovacuum. A PostgreSQL server vacuums and analyzes its tables in
// background processes; PGlite is one backend with none, so without this nothing ever does:
// - a row updated or deleted leaves its old version behind for good, and the space is never used
//   again, so a table with churn grows without end. The job queue is the worst case: every job is
//   inserted, claimed, finished and purged, and after 50,000 jobs an empty `jobs` table held 13 MB
//   and an idle queue's poll cost 24 ms of CPU instead of ~2 (BENCHMARKS.md, "The embedded
//   database's upkeep");
// - the planner has no statistics of a table until it is analyzed;
// - the oldest unfrozen transaction ID only ages; PostgreSQL in single-user mode (PGlite) does not
//   stop writes before its wraparound, after which old rows would vanish from view.
// So the service does autovacuum's work itself, on PostgreSQL's own thresholds
// (store/repositories/upkeep.ts), every `intervalMs`: one table at a time, each statement on the one
// thread it shares with requests, with a turn of the event loop between tables. After a start the
// first round vacuums every table once (the counters it decides by start at zero with the
// process); on a table whose pages are all marked visible that costs ~1 ms. The system catalogs are
// in the rounds too: they churn (each ANALYZE rewrites pg_statistic) and hold the database's
// oldest unfrozen transaction like any table.
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
  let stopped = false;
  const round = async (): Promise<Vacuumed[]> => {
    const tables = first ? await upkeepRepo.all(db) : await upkeepRepo.due(db);
    const done: Vacuumed[] = [];
    let failed = false;
    for (const t of tables) {
      // A turn for the requests waiting behind the statement before; a stopping service waits for
      // one statement, not the rest of the round.
      await new Promise((resolve) => setImmediate(resolve));
      if (stopped) return done;
      const started = performance.now();
      try {
        await upkeepRepo.run(db, t);
      } catch (err) {
        // One table's failure (logged) does not keep the others from their turn.
        failed = true;
        logger.warn({ err, table: `${t.schema}.${t.table}` }, 'embedded database: a vacuum failed; trying again at the next round');
        continue;
      }
      const ms = performance.now() - started;
      done.push({ ...t, ms });
      // A long one held every request for as long: worth a line at the default level.
      const fields = { table: `${t.schema}.${t.table}`, vacuum: t.vacuum, analyze: t.analyze, ms: Math.round(ms) };
      if (ms >= 100) logger.info(fields, 'embedded database: a long vacuum');
      else logger.debug(fields, 'embedded database: vacuumed');
    }
    // The first round again next time, until every table had its vacuum.
    if (!failed) first = false;
    const { age, limit } = await upkeepRepo.oldestXidAge(db);
    // PGlite runs PostgreSQL in single-user mode, which warns but never stops writes as a
    // wraparound nears: say so while there is time. The template databases (which this session
    // cannot vacuum) count in the age too.
    if (age > limit) logger.warn({ age, limit }, 'embedded database: old unfrozen transaction IDs; the rounds freeze what they can reach');
    return done;
  };
  return {
    round,
    start: () => {
      stopped = false;
      const stop = every(intervalMs, round, { logger, message: 'embedded database: the upkeep failed; trying again at the next round' });
      return async () => {
        stopped = true;
        await stop();
      };
    },
  };
}
