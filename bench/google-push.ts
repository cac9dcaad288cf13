// `npm run bench:google`: a directory sync and a push of 2,000 users into Gmail, against the fake of
// Google's endpoints (test/helpers/fake-google.ts, on a thread of this process, answering at once).
// The service runs as its own process on the embedded database (or DATABASE_URL), as `npm run
// bench` does. Prints how long the sync and the push took, end to end (job queued → every user
// deployed), and the push again once nothing changed.
//
// Then the hot routes (an org by API key, a warm render, the pixel) as `npm run bench` measures
// them, against the bare server measured around each: once with the service idle, once while the
// same instance pushes every signature again and again (the template edited before each push, so
// each sends all 2,000). `--no-hot-routes` skips that part.
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { freePort, httpRequest } from '../test/helpers/server.ts';
import { runNode, startProcess, type ServiceProcess } from '../test/helpers/process.ts';
import type { FakeWorkspace } from './fake-google-worker.ts';
import { benchEnv, hotRoutes, measure, measureSeries, seriesTable, type Load, type Result } from './measure.ts';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '2000' },
    json: { type: 'boolean', default: false },
    'hot-routes': { type: 'boolean', default: true },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
  },
  allowNegative: true,
});
const userCount = Number(values.users);
const progress = (line: string) => process.stderr.write(`${line}\n`);
const load: Load = { connections: Number(values.connections), durationS: Number(values.duration), progress };

const domain = 'bench-workspace.test';
const fake = new Worker(new URL('./fake-google-worker.ts', import.meta.url), { workerData: { domain, users: userCount } });
fake.on('error', (err) => {
  throw err;
});
const fakeAnswer = <T>(message?: 'patches'): Promise<T> =>
  new Promise((resolve) => {
    fake.once('message', resolve);
    if (message) fake.postMessage(message);
  });
const patchesSent = async () => (await fakeAnswer<{ patches: number }>('patches')).patches;
const workspace = (await fakeAnswer<{ ready: FakeWorkspace }>()).ready;

const dataDir = mkdtempSync(join(tmpdir(), 'sigsvc-bench-google-'));
const env = benchEnv(dataDir, { ...workspace.env, SECRETS_KEY: randomBytes(32).toString('base64'), JOBS_POLL_MS: '100' });
const procs: ServiceProcess[] = [];
const templateHtml = (edition: number) =>
  `<table role="presentation"><tr><td><b>{{ user.name }}</b><br>{{ user.title }}, {{ user.department }}<br>{{ org.name }} · {{ user.phone }}${edition ? ` · ${edition}` : ''}</td></tr></table>`;
try {
  const created = await runNode(
    ['src/cli/main.ts', 'org', 'create', '--name', 'Bench Ltd', '--seats', String(userCount + 10), '--owner-email', `owner@${domain}`],
    env,
  );
  if (created.code !== 0) throw new Error(`org create: ${created.stderr}`);
  const org = JSON.parse(created.stdout) as { orgId: string; ownerUserId: string; apiKey: { key: string } };
  const port = await freePort();
  const service = await startProcess({ ...env, BASE_URL: `http://127.0.0.1:${port}` }, port);
  procs.push(service);
  const api = (method: string, path: string, body?: unknown) =>
    httpRequest(service.url, method, `/v1/orgs/${org.orgId}${path}`, { key: org.apiKey.key, ...(body ? { body } : {}) });
  // The default template, in place of the starter design a new org comes with: the one pushed (and edited below).
  const template = await api('POST', '/templates', { name: 'Standard', html: templateHtml(0), text: '{{ user.name }}', isDefault: true });
  if (template.status !== 201) throw new Error(`template: ${template.text}`);

  const deployed = async () => {
    let n = 0;
    let cursor: string | null = null;
    do {
      const page: { body: { items: unknown[]; nextCursor: string | null } } = await api(
        'GET',
        `/deployments?state=deployed&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      );
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
  const put = await api('PUT', '/integrations/google', {
    serviceAccountKey: workspace.keyFile,
    adminEmail: workspace.adminEmail,
    syncUsers: true,
    pushSignatures: false,
  });
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
  await api('PUT', '/integrations/google', { adminEmail: workspace.adminEmail, syncUsers: true, pushSignatures: true });
  const before = await patchesSent();
  const t1 = performance.now();
  const push = await api('POST', '/integrations/google/push');
  const pushJob = await waitJob(push.body.jobId);
  const pushS = (performance.now() - t1) / 1000;
  const sent = (await patchesSent()) - before;
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
    patchesSentAgain: (await patchesSent()) - before - sent,
  };

  let hot: Awaited<ReturnType<typeof measureHotRoutes>> | undefined;
  if (values['hot-routes']) hot = await measureHotRoutes();

  /** The hot routes with the service idle, then while it pushes: each against the bare server measured around it. */
  async function measureHotRoutes() {
    const baselinePort = await freePort();
    const bare = await startProcess({}, baselinePort, { script: 'bench/baseline.ts', args: [String(baselinePort)], ready: '/' });
    procs.push(bare);
    const routes = hotRoutes(service, { orgId: org.orgId, key: org.apiKey.key, userId: org.ownerUserId });
    const names = Object.keys(routes) as (keyof typeof routes)[];
    const run = (name: string) => measure(name, service, load, routes[name as keyof typeof routes]);
    const baseline = () => measure('baseline', bare, load, { url: `${bare.url}/` });

    progress('… the hot routes, the service idle');
    const idle = await measureSeries(names, run, baseline);

    // Pushes one after another until told to stop, each after a template edit, so that each
    // renders and sends every user's signature again.
    let templateVersion: number = template.body.version;
    let stopping = false;
    let pushes = 0;
    const pushing = (async () => {
      for (let edition = 1; !stopping; edition++) {
        const edit = await api('PATCH', `/templates/${template.body.templateId}`, { version: templateVersion, html: templateHtml(edition) });
        if (edit.status !== 200) throw new Error(`template edit: ${edit.text}`);
        templateVersion = edit.body.version;
        const job = await waitJob((await api('POST', '/integrations/google/push')).body.jobId);
        if (job.state !== 'succeeded') throw new Error(`push: ${JSON.stringify(job)}`);
        pushes++;
      }
    })();
    progress('… the hot routes while the service pushes');
    const startPatches = await patchesSent();
    // Measured once the push is under way (its first renders done and PATCHes going out).
    for (const deadline = Date.now() + 120_000; (await patchesSent()) === startPatches; ) {
      if (Date.now() > deadline) throw new Error('the push after a template edit sent nothing in 120 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    const [p0, s0] = [await patchesSent(), performance.now()];
    const duringPush = await measureSeries(names, run, baseline);
    const [p1, s1] = [await patchesSent(), performance.now()];
    stopping = true;
    await pushing;
    return {
      idle,
      duringPush,
      pushes,
      patchesWhileMeasuring: p1 - p0,
      pushPerSecondWhileMeasuring: Math.round((p1 - p0) / ((s1 - s0) / 1000)),
    };
  }

  if (values.json) console.log(JSON.stringify({ node: process.version, cpus: cpus().length, ...result, ...(hot ? { hotRoutes: hot } : {}) }));
  else {
    console.log(`| users | sync (s) | push (s) | PATCHes | users/s | push again, unchanged (s) | PATCHes again |`);
    console.log(`|---|---|---|---|---|---|---|`);
    console.log(
      `| ${result.users} | ${result.syncSeconds} | ${result.pushSeconds} | ${result.patchesSent} | ${result.pushPerSecond} | ${result.unchangedPushSeconds} | ${result.patchesSentAgain} |`,
    );
    if (hot) {
      console.log(`\nThe hot routes, ${load.connections} connections, ${load.durationS} s each; the service idle:`);
      console.log(seriesTable(hot.idle).join('\n'));
      console.log(`\nWhile the same instance pushes (${hot.pushes} pushes of ${result.users}; ${hot.pushPerSecondWhileMeasuring} users/s while measured):`);
      console.log(seriesTable(hot.duringPush).join('\n'));
    }
  }
  const bad = [...(hot?.idle ?? []), ...(hot?.duringPush ?? [])].filter((s: Result) => s.errors > 0 || s.non2xx > 0);
  if (bad.length) {
    progress(`errors or non-2xx answers in: ${bad.map((s) => s.name).join(', ')} (a benchmark with errors is not a result)`);
    process.exitCode = 1;
  }
} finally {
  await Promise.all(procs.map((p) => p.stop()));
  fake.postMessage('close');
  await new Promise((resolve) => fake.once('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}
