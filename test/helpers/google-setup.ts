// Shared set-up of the Google tests: a database of their own (each file starts on an empty one
// already, test/helpers/shared-resources.ts; this gives each test that counts jobs across
// instances, or restarts on the same store, a queue of its own), a Workspace in the fake, and
// waiting for jobs.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before } from 'node:test';
import { startServer, type TestServer } from './server.ts';
import { callingTestFile } from './shared-resources.ts';
import { fakeGoogleEnv, startFakeGoogle, type FakeGoogle, type FakeGoogleUser, type ServiceAccount } from './fake-google.ts';
import { ON_POSTGRES, scratchDatabase } from './pg.ts';
import { waitFor } from './wait.ts';
import type { TestOrg } from './fixtures.ts';

export const SECRETS_KEY = randomBytes(32).toString('base64');

/** memory:// on the embedded store; a scratch database on PostgreSQL. */
export async function googleDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (ON_POSTGRES) return scratchDatabase();
  return { url: 'memory://', drop: async () => {} };
}

export function startGoogleServer(fake: FakeGoogle, databaseUrl: string, env: Record<string, string> = {}, overrides: Parameters<typeof startServer>[1] = {}) {
  return startServer(
    { ...fakeGoogleEnv(fake), SECRETS_KEY, DATABASE_URL: databaseUrl, JOBS_POLL_MS: '50', JOBS_RETRY_BASE_MS: '100', JOBS_RETRY_MAX_MS: '500', ...env },
    { google: { retry: { baseMs: 20, maxMs: 200 }, schedulerTickMs: 200, busyRetryMs: 200 }, ...overrides },
  );
}

/**
 * A suite's Google: before its tests a fake of Google, a database of its own and a server on both,
 * handed to `started`; after them, all three closed.
 */
export function googleSuite(started: (google: { fake: FakeGoogle; server: TestServer }) => void, overrides: Parameters<typeof startServer>[1] = {}): void {
  // Called as the suite is declared, with its file on the stack; its hooks run from here.
  const testFile = callingTestFile();
  let fake: FakeGoogle | undefined;
  let server: TestServer | undefined;
  let database: Awaited<ReturnType<typeof googleDatabase>> | undefined;
  before(async () => {
    fake = await startFakeGoogle();
    database = await googleDatabase();
    server = await startGoogleServer(fake, database.url, {}, { ...overrides, testFile });
    started({ fake, server });
  });
  after(async () => {
    if (fake) fake.delayMs = 0;
    await server?.close();
    await fake?.close();
    await database?.drop();
  });
}

export interface Workspace {
  domain: string;
  admin: FakeGoogleUser;
  account: ServiceAccount;
  users: FakeGoogleUser[];
}

/** A Workspace in the fake: an admin and `count` users of a fresh domain, and a service account. */
export function workspace(fake: FakeGoogle, count: number, options: { delegate?: string[]; user?: (n: number) => Partial<FakeGoogleUser> } = {}): Workspace {
  const domain = `ws-${randomUUID().slice(0, 8)}.test`;
  const admin = fake.addUser({ primaryEmail: `admin@${domain}`, isAdmin: true, name: { fullName: 'Ada Admin' } });
  const users: FakeGoogleUser[] = [];
  for (let n = 1; n <= count; n++) {
    users.push(
      fake.addUser({
        primaryEmail: `user${String(n).padStart(4, '0')}@${domain}`,
        name: { fullName: `User ${n}` },
        organizations: [{ title: 'Engineer', department: n % 2 ? 'Sales' : 'R&D', primary: true }],
        phones: [{ value: `+1 555 ${String(n).padStart(4, '0')}`, type: 'work' }],
        ...options.user?.(n),
      }),
    );
  }
  return { domain, admin, users, account: fake.serviceAccount({ delegate: options.delegate }) };
}

export async function connect(server: TestServer, org: TestOrg, ws: Workspace, body: Record<string, unknown> = {}) {
  const res = await server.request('PUT', `/v1/orgs/${org.orgId}/integrations/google`, {
    key: org.key,
    body: { serviceAccountKey: ws.account.keyFile, adminEmail: ws.admin.primaryEmail, ...body },
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** Waits until every job of the org is done; answers the failed ones (callers assert there are none). */
export async function jobsSettled(server: TestServer, orgId: string, timeoutMs = 60_000) {
  const db = server.deps.database.db;
  await waitFor(
    async () => {
      const open = await db.selectFrom('jobs').select(['id', 'state']).where('org_id', '=', orgId).where('state', 'in', ['queued', 'running']).execute();
      return open.length === 0;
    },
    'the jobs to finish',
    timeoutMs,
  );
  const failed = await db.selectFrom('jobs').select(['kind', 'error']).where('org_id', '=', orgId).where('state', '=', 'failed').execute();
  return failed;
}

export async function waitForJob(server: TestServer, org: TestOrg, jobId: string, timeoutMs = 60_000) {
  return waitFor(
    async () => {
      const res = await server.request('GET', `/v1/orgs/${org.orgId}/jobs/${jobId}`, { key: org.key });
      return res.body.state === 'succeeded' || res.body.state === 'failed' ? res.body : undefined;
    },
    `job ${jobId}`,
    timeoutMs,
  );
}
