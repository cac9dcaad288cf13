// `npm run bench:webhooks` (DATABASE_URL=postgres://… required): two service processes on one
// PostgreSQL database deliver 1,000 `signature.rendered` events (one render of each of 1,000
// people) to a receiver on localhost; once a
// part of them arrived, one instance is killed (SIGKILL, mid-delivery). Every event must still
// arrive at least once: the deliveries the dead instance held come back when their lease runs out
// (15 s), its drain jobs when the queue's lease does. Prints the delivery throughput before the kill,
// how long the whole took, and how many events arrived more than once. Too slow for the test suite
// (the lease alone is 15 s), so it is a bench script; exits 1 when an event is missing.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort, httpRequest } from '../test/helpers/server.ts';
import { runNode, startProcess, type ServiceProcess } from '../test/helpers/process.ts';
import { scratchDatabase } from '../test/helpers/pg.ts';
import { startReceiver } from '../test/helpers/webhook-receiver.ts';
import { benchEnv, createUsers } from './measure.ts';

const { values } = parseArgs({ options: { events: { type: 'string', default: '1000' }, 'kill-after': { type: 'string', default: '200' } } });
const total = Number(values.events);
const killAfter = Number(values['kill-after']);
const progress = (line: string) => process.stderr.write(`${line}\n`);
if (!process.env.DATABASE_URL?.startsWith('postgres')) throw new Error('DATABASE_URL must name a PostgreSQL server (two instances share it)');

const scratch = await scratchDatabase();
const dataDir = mkdtempSync(join(tmpdir(), 'sigsvc-bench-webhooks-'));
const env = benchEnv(dataDir, {
  DATABASE_URL: scratch.url,
  SECRETS_KEY: randomBytes(32).toString('base64'),
  WEBHOOK_ALLOW_PRIVATE: 'true',
  JOBS_POLL_MS: '100',
  JOBS_LEASE_MS: '3000',
});
const receiver = await startReceiver();
receiver.answer = () => ({ status: 200, delayMs: 5 });
const procs: ServiceProcess[] = [];
const db = new pg.Client({ connectionString: scratch.url });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let failed = false;
try {
  const created = await runNode(
    ['src/cli/main.ts', 'org', 'create', '--name', 'Hooks Ltd', '--owner-email', 'owner@hooks.test', '--seats', String(total + 10)],
    env,
  );
  if (created.code !== 0) throw new Error(`org create: ${created.stderr}`);
  const org = JSON.parse(created.stdout) as { orgId: string; ownerUserId: string; apiKey: { key: string } };
  const ports = [await freePort(), await freePort()];
  procs.push(...(await Promise.all(ports.map((port) => startProcess({ ...env, BASE_URL: `http://127.0.0.1:${port}` }, port)))));
  const [a, b] = procs as [ServiceProcess, ServiceProcess];
  const key = org.apiKey.key;
  const tpl = await httpRequest(a.url, 'POST', `/v1/orgs/${org.orgId}/templates`, {
    key,
    body: { name: 'Bench', html: '<p>{{ user.name }}</p>', isDefault: true },
  });
  if (tpl.status !== 201) throw new Error(`template: ${tpl.text}`);
  const ep = await httpRequest(a.url, 'POST', `/v1/orgs/${org.orgId}/webhook-endpoints`, { key, body: { url: receiver.url, events: ['signature.rendered'] } });
  if (ep.status !== 201) throw new Error(`endpoint: ${ep.text}`);
  await db.connect();

  // One render of each of `total` people: `signature.rendered` makes an event of at most ten renders
  // a second of one signature (the rest are counted into one more), so renders of one person would
  // never make `total` events (docs/webhooks.md).
  progress(`creating ${total} users…`);
  const userIds = await createUsers(a.url, org.orgId, key, total, (i) => ({ email: `u${i}@hooks.test`, name: `User ${i}` }));
  // The users' own events (user.created) are not subscribed: only the renders' are delivered.
  progress(`rendering ${total} signatures through both instances…`);
  for (let i = 0; i < total; i += 50) {
    await Promise.all(
      userIds
        .slice(i, i + 50)
        .map((userId, j) => httpRequest((i + j) % 2 ? b.url : a.url, 'POST', `/v1/orgs/${org.orgId}/render/${userId}`, { key, body: {} })),
    );
  }
  // Written (batched from both instances' memory) before anything is killed: the kill tests delivery.
  while (Number((await db.query(`select count(*) as n from outbound_events`)).rows[0].n) < total) await sleep(50);
  const started = performance.now();
  const distinct = () => new Set(receiver.received.map((r) => String(r.headers['webhook-id']))).size;
  while (distinct() < killAfter) await sleep(10);
  const atKill = distinct();
  const ratePerS = atKill / ((performance.now() - started) / 1000);
  process.kill(a.pid!, 'SIGKILL');
  progress(`killed instance A after ${atKill} events had arrived (${ratePerS.toFixed(0)} deliveries/s)`);
  const deadline = performance.now() + 180_000;
  for (;;) {
    const stored = Number((await db.query(`select count(*) as n from outbound_events`)).rows[0].n);
    if (stored >= total && distinct() >= total) break;
    if (performance.now() > deadline) {
      failed = true;
      progress(`TIMED OUT: ${distinct()} of ${total} events arrived (${stored} stored)`);
      break;
    }
    await sleep(100);
  }
  const stored = Number((await db.query(`select count(*) as n from outbound_events`)).rows[0].n);
  const states = (await db.query(`select state, count(*)::int as n from outbound_deliveries group by state order by state`)).rows;
  const result = {
    eventsRendered: total,
    eventsStored: stored,
    eventsArrived: distinct(),
    requestsReceived: receiver.received.length,
    duplicates: receiver.received.length - distinct(),
    deliveriesPerSecondBeforeKill: Math.round(ratePerS),
    secondsToDeliverAll: Math.round((performance.now() - started) / 100) / 10,
    deliveryStates: Object.fromEntries(states.map((s: { state: string; n: number }) => [s.state, s.n])),
    maxInFlightAtReceiver: receiver.maxInFlight,
  };
  console.log(JSON.stringify(result, null, 2));
  if (stored < total || distinct() < total) failed = true;
} finally {
  await db.end().catch(() => {});
  await Promise.all(procs.map((p) => p.stop().catch(() => {})));
  await receiver.close();
  await scratch.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
