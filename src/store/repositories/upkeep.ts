// The embedded database's upkeep (src/upkeep/upkeep.ts): which tables need a VACUUM or an ANALYZE,
// and running them. PostgreSQL's autovacuum decides the same from the same counters on a server;
// PGlite is one backend with no background workers, so nothing does it there unless we do.
import { sql } from 'kysely';
import type { Db } from '../database.ts';

export interface TableDue {
  /** The app's schema, or `pg_catalog`: the catalogs churn too (every ANALYZE rewrites `pg_statistic`). */
  schema: string;
  table: string;
  vacuum: boolean;
  analyze: boolean;
}

/** `n` as a float8 setting of the server: PostgreSQL's own autovacuum settings decide. */
const setting = (name: string) => sql<number>`current_setting(${name})::float8`;
const rows = sql<number>`greatest(c.reltuples, 0)`;
/**
 * The app's schema and the system catalogs. The database's oldest unfrozen transaction is the
 * oldest of all its tables, catalogs included: vacuuming only the app's would never move it.
 */
const schemas = sql`(current_schema(), 'pg_catalog')`;

export const upkeepRepo = {
  /**
   * The tables past autovacuum's thresholds, read from the statistics this process has counted
   * (PostgreSQL's "Routine Vacuuming": dead rows over 50 + 20 % of the table, rows inserted since
   * the last vacuum over 1,000 + 20 %, rows changed since the last analyze over 50 + 10 %, or the
   * oldest unfrozen transaction older than `autovacuum_freeze_max_age`, the guard against
   * transaction-ID wraparound). Not applied: PostgreSQL 18's `autovacuum_vacuum_max_threshold`
   * cap, the insert threshold's scaling by unfrozen pages, and multixact ages.
   */
  async due(db: Db): Promise<TableDue[]> {
    const r = await sql<TableDue>`
      select s.schemaname as "schema", c.relname as "table",
        (s.n_dead_tup > ${setting('autovacuum_vacuum_threshold')} + ${setting('autovacuum_vacuum_scale_factor')} * ${rows}
          or (${setting('autovacuum_vacuum_insert_threshold')} >= 0
            and s.n_ins_since_vacuum > ${setting('autovacuum_vacuum_insert_threshold')} + ${setting('autovacuum_vacuum_insert_scale_factor')} * ${rows})
          or age(c.relfrozenxid) > ${setting('autovacuum_freeze_max_age')}) as vacuum,
        s.n_mod_since_analyze > ${setting('autovacuum_analyze_threshold')} + ${setting('autovacuum_analyze_scale_factor')} * ${rows} as analyze
      from pg_stat_all_tables s
      join pg_class c on c.oid = s.relid
      where s.schemaname in ${schemas} and c.relkind = 'r'
      order by s.schemaname desc, c.relname`.execute(db);
    return r.rows.filter((t) => t.vacuum || t.analyze);
  },

  /**
   * Every table of the app's schema and of the catalogs, for the first round after a start (the
   * counters above live in memory and start at zero with the process): `analyze` for the ones
   * without column statistics (never analyzed; a VACUUM or a CREATE INDEX sets the row estimate,
   * not these), whose plans run on default guesses until then.
   */
  async all(db: Db): Promise<TableDue[]> {
    const r = await sql<TableDue>`
      select n.nspname as "schema", c.relname as "table", true as vacuum,
        c.reltuples <> 0 and not exists (select 1 from pg_statistic st where st.starelid = c.oid) as analyze
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      where n.nspname in ${schemas} and c.relkind = 'r'
      order by n.nspname desc, c.relname`.execute(db);
    return r.rows;
  },

  /** The oldest unfrozen transaction of every database (template ones included), by its age. */
  async oldestXidAge(db: Db): Promise<{ age: number; limit: number }> {
    const r = await sql<{ age: number; limit: number }>`
      select max(age(datfrozenxid))::float8 as age, ${setting('autovacuum_freeze_max_age')} as limit from pg_database`.execute(db);
    return r.rows[0]!;
  },

  /** VACUUM (and ANALYZE) of one table; VACUUM runs outside a transaction, as this does. */
  async run(db: Db, t: TableDue): Promise<void> {
    const table = sql.id(t.schema, t.table);
    if (t.vacuum) await sql`vacuum ${t.analyze ? sql`(analyze) ` : sql``}${table}`.execute(db);
    else if (t.analyze) await sql`analyze ${table}`.execute(db);
  },
};
