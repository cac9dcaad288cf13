// A job worker in a process of its own, for the test that kills it mid-job (SIGKILL: no cleanup,
// no lease given back). Arguments: the PostgreSQL URL and the job kind. Prints `started <jobId>`
// when its handler begins, then never finishes.
import { openDatabase } from '../../src/store/db.ts';
import { createJobQueue } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/log.ts';

const [url, kind, leaseMs] = process.argv.slice(2);
if (!url || !kind || !leaseMs) throw new Error('usage: job-crash-worker.ts <postgres-url> <kind> <leaseMs>');
const database = await openDatabase({ databaseUrl: url, dataDir: 'unused' });
const queue = createJobQueue({ db: database.db, logger: createLogger('silent', false), options: { pollMs: 20, leaseMs: Number(leaseMs) } });
queue.registerHandler(kind, async (job) => {
  process.stdout.write(`started ${job.jobId}\n`);
  await new Promise(() => {});
});
queue.start();
