// `npm run bench:webhook-history`: the payment-provider webhook route against one org that already
// has 100, 10,000 and 100,000 stored events (issue #32, item 2): the cost of an event must not grow
// with the org's history. The history is written straight into webhook_events by SQL (100,000
// signed deliveries would take minutes), as applied events the route's own rules would have
// stored: alternating failed and paid invoices, one a minute, ending a day ago.
//
// At each size, with the service restarted on the grown history, two loads:
// - in-order: new events (`created` now), the usual case;
// - late: events whose `created` falls before the org's ten newest events (seeded an hour ago,
//   after a day without events), each a second after the late one before it: each is placed
//   among the org's history (order-independent billing, docs/api.md "Billing") and the same ten
//   events after it are applied again, however long the history before them.
// The service runs on the embedded store, or on DATABASE_URL / REDIS_URL when set.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import { sql } from 'kysely';
import { freePort } from '../test/helpers/server.ts';
import { signedHeader } from '../test/helpers/payments.ts';
import { runNode, startProcess } from '../test/helpers/process.ts';
import { openDatabase } from '../src/store/db.ts';
import { benchEnv, measure, type Load, type Measured } from './measure.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    sizes: { type: 'string', default: '100,10000,100000' },
    json: { type: 'boolean', default: false },
    // A directory for the service's CPU profiles (node --cpu-prof), one per size.
    profile: { type: 'string' },
    // Deliveries one at a time at each size, late and in order: their median time (0: none).
    probes: { type: 'string', default: '3' },
  },
});
const sizes = values.sizes.split(',').map(Number);
const progress = (line: string) => process.stderr.write(`${line}\n`);
const load: Load = { connections: Number(values.connections), durationS: Number(values.duration), progress };

const SECRET = 'whsec_bench';
const MINUTE = 60;
/** The newest stored event's `created`, unix seconds: a day ago. */
const historyEnd = Math.floor(Date.now() / 1000) - 86_400;
/** The org's ten newest events, a minute apart from an hour ago. */
const recentStart = Math.floor(Date.now() / 1000) - 3600;
const newest = recentStart + 9 * MINUTE;
/** Late events: a second apart from just after the seeded history, all before the ten newest. */
let lateSeq = 0;
const nextLate = () => historyEnd + 1 + lateSeq++;

const dataDir = mkdtempSync(join(tmpdir(), 'sigsvc-bench-history-'));
const env = benchEnv(dataDir, { WEBHOOK_SECRET: SECRET });

/** Adds stored events `from`..`to`-1 to the org's history in one statement. */
async function seed(orgId: string, from: number, to: number): Promise<void> {
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir });
  try {
    // Event i is created (to - 1 - i) minutes before historyEnd: whatever the size, the newest is there.
    await sql`
      INSERT INTO webhook_events (id, type, created_at, received_at, org_id, status, outcome, raw_body)
      SELECT e.id, e.type, to_timestamp(e.created), now(), ${orgId}::uuid, 'applied', 'changed subscriptionStatus',
        convert_to(json_build_object('id', e.id, 'type', e.type, 'created', e.created,
          'data', json_build_object('object', json_build_object('customer', 'cus_history', 'metadata', json_build_object('orgId', ${orgId}::text))))::text, 'UTF8')
      FROM (
        SELECT 'evt_history_' || i AS id,
          CASE WHEN i % 2 = 0 THEN 'invoice.payment_failed' ELSE 'invoice.paid' END AS type,
          ${historyEnd}::bigint - (${to}::bigint - 1 - i) * ${MINUTE} AS created
        FROM generate_series(${from}::bigint, ${to - 1}::bigint) AS i
      ) AS e`.execute(database.db);
    // The seeded history must stay in created order: move the older ones back (from 0, the
    // first seeded events keep their place relative to the new end).
    if (from > 0) {
      await sql`UPDATE webhook_events SET created_at = created_at - make_interval(secs => ${(to - from) * MINUTE})
        WHERE org_id = ${orgId}::uuid AND id LIKE 'evt_history_%' AND substr(id, 13)::bigint < ${from}`.execute(database.db);
      await sql`UPDATE webhook_events SET raw_body = convert_to(jsonb_set(convert_from(raw_body, 'UTF8')::jsonb, '{created}',
          to_jsonb(extract(epoch FROM created_at)::bigint))::text, 'UTF8')
        WHERE org_id = ${orgId}::uuid AND id LIKE 'evt_history_%' AND substr(id, 13)::bigint < ${from}`.execute(database.db);
    }
    await sql`DELETE FROM webhook_events WHERE id LIKE 'evt_recent_%'`.execute(database.db);
    await sql`
      INSERT INTO webhook_events (id, type, created_at, received_at, org_id, status, outcome, raw_body)
      SELECT e.id, e.type, to_timestamp(e.created), now(), ${orgId}::uuid, 'applied', 'changed subscriptionStatus',
        convert_to(json_build_object('id', e.id, 'type', e.type, 'created', e.created,
          'data', json_build_object('object', json_build_object('customer', 'cus_history', 'metadata', json_build_object('orgId', ${orgId}::text))))::text, 'UTF8')
      FROM (
        SELECT 'evt_recent_' || k AS id, CASE WHEN k % 2 = 0 THEN 'invoice.payment_failed' ELSE 'invoice.paid' END AS type,
          ${recentStart}::bigint + k * ${MINUTE} AS created
        FROM generate_series(0, 9) AS k
      ) AS e`.execute(database.db);
    await sql`UPDATE orgs SET billing_event_at = to_timestamp(${newest}), billing_event_rank = 4, subscription_status = 'active',
        provider_customer_id = 'cus_history', billing_base = coalesce(billing_base, jsonb_build_object(
          'subscriptionStatus', subscription_status, 'plan', plan, 'priceVersion', price_version, 'seats', seats,
          'overSeatLimit', over_seat_limit, 'currentPeriodEnd', current_period_end, 'gracePeriodEndsAt', grace_period_ends_at,
          'providerCustomerId', provider_customer_id, 'providerSubscriptionId', provider_subscription_id))
      WHERE id = ${orgId}::uuid`.execute(database.db);
  } finally {
    await database.close();
  }
}

/** Removes the loads' own events and puts the org back where the seeded history left it. */
async function forgetLoads(orgId: string): Promise<void> {
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir });
  try {
    await sql`DELETE FROM webhook_events WHERE id LIKE 'evt_bench_%'`.execute(database.db);
    await sql`UPDATE orgs SET billing_event_at = to_timestamp(${newest}), billing_event_rank = 4, subscription_status = 'active',
      grace_period_ends_at = NULL WHERE id = ${orgId}::uuid`.execute(database.db);
  } finally {
    await database.close();
  }
}

interface Row {
  events: number;
  inOrder: Measured;
  late: Measured;
}

let seq = 0;
const firstLateMs: number[] = [];
const probes = Number(values.probes);
/** Median milliseconds of single deliveries one after the other, at each size. */
const single: { events: number; lateMs: number; inOrderMs: number }[] = [];

async function median(n: number, init: () => RequestInit, url: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await fetch(url, init());
    if (!res.ok) throw new Error(`probe: ${res.status} ${await res.text()}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return Math.round((times[Math.floor(times.length / 2)] ?? 0) * 10) / 10;
}

function inOrderOne(orgId: string): RequestInit {
  const body = JSON.stringify({
    id: `evt_bench_next_${seq++}`,
    type: 'invoice.paid',
    created: Math.floor(Date.now() / 1000),
    data: { object: { customer: 'cus_history', metadata: { orgId } } },
  });
  return { method: 'POST', body, headers: { 'content-type': 'application/json', 'provider-signature': signedHeader(body, { secret: SECRET }) } };
}

function lateOne(orgId: string): RequestInit {
  const body = JSON.stringify({
    id: `evt_bench_first_${seq++}`,
    type: 'invoice.payment_failed',
    created: nextLate(),
    data: { object: { customer: 'cus_history', metadata: { orgId } } },
  });
  return { method: 'POST', body, headers: { 'content-type': 'application/json', 'provider-signature': signedHeader(body, { secret: SECRET }) } };
}
function load_(url: string, orgId: string, created: () => number, type: string): autocannon.Options {
  return {
    url: `${url}/v1/webhooks/payment-provider`,
    requests: [
      {
        method: 'POST' as const,
        setupRequest: (req: autocannon.Request) => {
          const body = JSON.stringify({
            id: `evt_bench_${process.pid}_${seq++}`,
            type,
            created: created(),
            data: { object: { customer: 'cus_history', metadata: { orgId } } },
          });
          return { ...req, body, headers: { 'content-type': 'application/json', 'provider-signature': signedHeader(body, { secret: SECRET }) } };
        },
      },
    ],
  };
}

const rows: Row[] = [];
try {
  progress('… seeding an org');
  const created = await runNode(['src/cli/main.ts', 'org', 'create', '--name', 'History Ltd', '--seats', '10', '--owner-email', 'owner@history.test'], env);
  if (created.code !== 0) throw new Error(`org create: ${created.stderr}`);
  const { orgId } = JSON.parse(created.stdout) as { orgId: string };
  let stored = 0;
  for (const size of sizes) {
    const target = Math.max(size - stored, 0);
    progress(`… ${size} stored events: seeding ${target}`);
    if (target > 0) await seed(orgId, stored, stored + target);
    const port = await freePort();
    const nodeOptions: Record<string, string> = values.profile
      ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${values.profile} --cpu-prof-name=history-${size}.cpuprofile` }
      : {};
    const service = await startProcess({ ...env, ...nodeOptions, BASE_URL: `http://127.0.0.1:${port}` }, port);
    try {
      // One late event first: an org whose history has no recorded states yet folds it once.
      const started = performance.now();
      const first = await fetch(`${service.url}/v1/webhooks/payment-provider`, lateOne(orgId));
      if (!first.ok) throw new Error(`first late event: ${first.status} ${await first.text()}`);
      firstLateMs.push(Math.round(performance.now() - started));
      const hook = `${service.url}/v1/webhooks/payment-provider`;
      const lateMs = probes > 0 ? await median(probes, () => lateOne(orgId), hook) : 0;
      const late = await measure(`late @ ${size}`, service, load, load_(service.url, orgId, nextLate, 'invoice.payment_failed'));
      // The late deliveries still being applied when the load stopped are not the next load's.
      await fetch(`${service.url}/v1/webhooks/payment-provider`, lateOne(orgId));
      const inOrder = await measure(
        `in-order @ ${size}`,
        service,
        load,
        load_(service.url, orgId, () => Math.floor(Date.now() / 1000), 'invoice.paid'),
      );
      rows.push({ events: size, inOrder, late });
      single.push({ events: size, lateMs, inOrderMs: probes > 0 ? await median(probes, () => inOrderOne(orgId), hook) : 0 });
    } finally {
      await service.stop();
    }
    stored = size;
    await forgetLoads(orgId);
  }
  if (values.json)
    process.stdout.write(
      `${JSON.stringify({ database: process.env.DATABASE_URL ? 'postgres' : 'embedded', connections: load.connections, rows, firstLateMs, single }, null, 2)}\n`,
    );
  else {
    const line = (r: Row, m: Measured, kind: string) =>
      `| ${String(r.events).padStart(7)} | ${kind.padEnd(8)} | ${String(m.rps).padStart(6)} | ${String(m.p50Ms).padStart(5)} | ${String(m.p99Ms).padStart(6)} | ${String(m.cpuUsPerRequest).padStart(10)} | ${m.errors + m.non2xx} |`;
    process.stdout.write(
      [
        `${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded'} database, ${load.connections} connections, ${load.durationS} s each`,
        '| events  | load     |  req/s |   p50 |    p99 | CPU µs/req | errors |',
        '|---------|----------|--------|-------|--------|------------|--------|',
        ...rows.flatMap((r) => [line(r, r.late, 'late'), line(r, r.inOrder, 'in-order')]),
        ...(probes > 0
          ? [`one delivery at a time (median of ${probes}), late / in order: ${single.map((r) => `${r.events}: ${r.lateMs} / ${r.inOrderMs} ms`).join(', ')}`]
          : []),
        `the first late event at each size (before the loads): ${firstLateMs.map((ms, i) => `${rows[i]?.events ?? sizes[i]}: ${ms} ms`).join(', ')}`,
        '',
      ].join('\n'),
    );
  }
  if (rows.some((r) => r.late.errors + r.late.non2xx + r.inOrder.errors + r.inOrder.non2xx > 0)) {
    progress('errors or non-2xx answers: not a result');
    process.exitCode = 1;
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
