// Runs once before the test files (npm test's --test-global-setup), so the files that start at
// the same time do not each make what they share: the migrated snapshot embedded test servers
// start from and, when the suite runs on PostgreSQL, the migrated database and the template each
// file's own database is cloned from (test/helpers/file-database.ts).
import { openDatabase } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { migratedSnapshot, snapshotDataDir } from './snapshot.ts';
import { dropFileDatabases, fileDatabaseNames, maintenanceClient } from './file-database.ts';

async function migrateAt(url: string): Promise<void> {
  const database = await openDatabase({ databaseUrl: url, dataDir: 'unused' });
  try {
    await migrate(database);
  } finally {
    await database.close();
  }
}

export async function globalSetup(): Promise<void> {
  await migratedSnapshot();
  // The data directory the files that run the service or the CLI as a process copy (seededDataDir):
  // made here, not by each shard at once on a first run.
  await snapshotDataDir('migrated');
  const url = process.env.DATABASE_URL;
  if (!url?.startsWith('postgres')) return;
  await migrateAt(url);
  await dropFileDatabases(url);
  const template = fileDatabaseNames(url).template;
  const client = maintenanceClient(url);
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${template}"`);
  } finally {
    await client.end();
  }
  const templateUrl = new URL(url);
  templateUrl.pathname = `/${template}`;
  await migrateAt(templateUrl.toString());
}
