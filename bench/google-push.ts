// `npm run bench:google`: a directory sync and a push of 2,000 users into Gmail, against the fake of
// Google's endpoints (test/helpers/fake-google.ts, in this process, answering at once). The service
// runs as its own process on the embedded database (or DATABASE_URL), as `npm run bench` does.
// Prints how long the sync and the push took, end to end (job queued → every user deployed), and
// the push again once nothing changed.
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, httpRequest } from '../test/helpers/server.ts';
import { runNode, startProcess, type ServiceProcess } from '../test/helpers/process.ts';
import { fakeGoogleEnv, startFakeGoogle } from '../test/helpers/fake-google.ts';

const { values } = parseArgs({ options: { users: { type: 'string', default: '2000' }, json: { type: 'boolean', default: false } } });
const userCount = Number(values.users);
const progress = (line: string) => process.stderr.write(`${line}\n`);

const fake = await startFakeGoogle();
const domain = 'bench-workspace.test';
const admin = fake.addUser({ primaryEmail: `admin@${domain}`, isAdmin: true, name: { fullName: 'Bench Admin' } });
for (let n = 1; n < userCount; n++) {
  fake.addUser({
    primaryEmail: `user${n}@${domain}`,
    name: { fullName: `User ${n}` },
    organizations: [{ title: 'Engineer', department: n % 3 ? 'R&D' : 'Sales', primary: true }],
    phones: [{ value: `+1 555 ${n}`, type: 'work' }],
  });
}
const account = fake.serviceAccount();
const dataDir = mkdtempSync(join(tmpdir(), 'sigsvc-bench-google-'));
const env: Record<string, string> = {
  ...fakeGoogleEnv(fake),
  DATA_DIR: dataDir,
  DATABASE_URL: process.env.DATABASE_URL ?? '',
  REDIS_URL: process.env.REDIS_URL ?? '',
  STAGE: 'bench',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_RPS: '1000000000',
  RATE_LIMIT_BURST: '1000000000',
  SECRETS_KEY: randomBytes(32).toString('base64'),
  JOBS_POLL_MS: '100',
};
let service: ServiceProcess | undefined;
try {
  const created = await runNode(['src/cli/main.ts', 'org', 'create', '--name', 'Bench Ltd', '--seats', String(userCount + 10), '--owner-email', `owner@${domain}`], env);
  if (created.code !== 0) throw new Error(`org create: ${created.stderr}`);
  const org = JSON.parse(created.stdout) as { orgId: string; apiKey: { key: string } };
  // The owner is a Workspace user too, so every live user has a mailbox.
  fake.addUser({ primaryEmail: `owner@${domain}`, name: { fullName: 'Bench Owner' } });
  const port = await freePort();
  service = await startProcess({ ...env, BASE_URL: `http://127.0.0.1:${port}` }, port);
  const s = service;
  const api = (method: string, path: string, body?: unknown) => httpRequest(s.url, method, `/v1/orgs/${org.orgId}${path}`, { key: org.apiKey.key, ...(body ? { body } : {}) });
  const template = await api('POST', '/templates', {
    name: 'Standard',
    html: '<table role="presentation"><tr><td><b>{{ user.name }}</b><br>{{ user.title }}, {{ user.department }}<br>{{ org.name }} · {{ user.phone }}</td></tr></table>',
    text: '{{ user.name }}',
  });
  if (template.status !== 201) throw new Error(`template: ${template.text}`);

  const deployed = async () => {
    let n = 0;
    let cursor: string | null = null;
    do {
      const page: { body: { items: unknown[]; nextCursor: string | null } } = await api('GET', `/deployments?state=deployed&limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      n += page.body.items.length;
      cursor = page.body.nextCursor;
    } while (cursor);
    return n;
  };
  const waitJob = async (jobId: string) => {
    for (;;) {
      const job = await api('GET', `/jobs/${jobId}`);
      if (job.body.state === 'succeeded' || job.body.state === 'failed') return job.body;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  progress(`… connecting; syncing ${userCount} users`);
  const t0 = performance.now();
  const put = await api('PUT', '/integrations/google', { serviceAccountKey: account.keyFile, adminEmail: admin.primaryEmail, syncUsers: true, pushSignatures: false });
  if (put.status !== 200) throw new Error(`connect: ${put.text}`);
  // The connection queued the first sync itself: wait until every user of the directory is here.
  for (;;) {
    const users = await api('GET', '/integrations/google');
    if (users.body.lastSyncAt) break;
    if (users.body.lastError) throw new Error(`sync: ${users.body.lastError}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const syncS = (performance.now() - t0) / 1000;

  progress(`… pushing ${userCount} signatures`);
  await api('PUT', '/integrations/google', { adminEmail: admin.primaryEmail, syncUsers: true, pushSignatures: true });
  const before = fake.patches.length;
  const t1 = performance.now();
  const push = await api('POST', '/integrations/google/push');
  const pushJob = await waitJob(push.body.jobId);
  const pushS = (performance.now() - t1) / 1000;
  const sent = fake.patches.length - before;
  const count = await deployed();
  // The directory's users and the org's owner (also a Workspace user).
  if (pushJob.state !== 'succeeded' || count !== userCount + 1) throw new Error(`push: ${JSON.stringify(pushJob)}; ${count} deployed`);
  progress(`  push job: ${JSON.stringify(pushJob)}`);

  const t2 = performance.now();
  const again = await api('POST', '/integrations/google/push');
  await waitJob(again.body.jobId);
  const againS = (performance.now() - t2) / 1000;
  const result = {
    users: count,
    syncSeconds: Number(syncS.toFixed(1)),
    pushSeconds: Number(pushS.toFixed(1)),
    patchesSent: sent,
    pushPerSecond: Math.round(count / pushS),
    unchangedPushSeconds: Number(againS.toFixed(1)),
    patchesSentAgain: fake.patches.length - before - sent,
  };
  if (values.json) console.log(JSON.stringify(result));
  else {
    console.log(`| users | sync (s) | push (s) | PATCHes | users/s | push again, unchanged (s) | PATCHes again |`);
    console.log(`|---|---|---|---|---|---|---|`);
    console.log(`| ${result.users} | ${result.syncSeconds} | ${result.pushSeconds} | ${result.patchesSent} | ${result.pushPerSecond} | ${result.unchangedPushSeconds} | ${result.patchesSentAgain} |`);
  }
} finally {
  await service?.stop();
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
}
