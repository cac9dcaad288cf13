// Scratch PostgreSQL databases for the tests that need a server of their own (migration races,
// a database that goes away, several instances). They run in the suite's PostgreSQL pass
// (DATABASE_URL set, the second pass of .ci/run) and are skipped in the embedded pass, which ran
// them a second time for nothing. Under CI=true a missing server fails them.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

/** Whether this pass of the suite runs on PostgreSQL (DATABASE_URL, as .ci/run's second pass). */
export const ON_POSTGRES = process.env.DATABASE_URL?.startsWith('postgres') ?? false;

const serverUrl = () => (ON_POSTGRES ? process.env.DATABASE_URL! : 'postgres://postgres@127.0.0.1:5432/test');

/** The skip reason of a test that needs a PostgreSQL server of its own. */
export const NEEDS_POSTGRES = "needs a PostgreSQL server: runs in the suite's PostgreSQL pass (DATABASE_URL, as .ci/run's second pass)";

/** Whether this pass runs the tests that need a PostgreSQL server of their own. */
export async function postgresAvailable(): Promise<boolean> {
  if (!ON_POSTGRES) return false;
  // A server that is down refuses at once; the wait is for one that is busy (the shards' load in
  // CI: 1.5 s was once too short for two files at the same moment).
  const client = new pg.Client({ connectionString: serverUrl(), connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch (err) {
    if (process.env.CI === 'true') throw new Error(`PostgreSQL is not reachable at ${serverUrl()} (required under CI): ${(err as Error).message}`);
    return false;
  }
}

/** A new empty database on the server; returns its URL and a function that drops it. */
export async function scratchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `sigsvc_scratch_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * A scratch database reached through a TCP proxy the test can cut, stall and restore; `url` is the
 * database's URL through the proxy. `close` closes the proxy and drops the database.
 */
export async function scratchBehindProxy(): Promise<{ url: string; proxy: TcpProxy; close: () => Promise<void> }> {
  const scratch = await scratchDatabase();
  const target = new URL(scratch.url);
  const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
  const viaProxy = new URL(scratch.url);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  return {
    url: viaProxy.toString(),
    proxy,
    async close() {
      await proxy.close();
      await scratch.drop();
    },
  };
}
