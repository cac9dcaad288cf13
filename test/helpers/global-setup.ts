// Runs once before the test files (npm test's --test-global-setup), so the files that start at
// the same time do not each make what they share: the migrated snapshot embedded test servers
// start from and, when the suite runs on PostgreSQL, the shared database's migrations.
import { openDatabase } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { migratedSnapshot } from './snapshot.ts';

export async function globalSetup(): Promise<void> {
  await migratedSnapshot();
  const url = process.env.DATABASE_URL;
  if (url?.startsWith('postgres')) {
    const database = await openDatabase({ databaseUrl: url, dataDir: 'unused' });
    try {
      await migrate(database);
    } finally {
      await database.close();
    }
  }
}
