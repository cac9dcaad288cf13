// `npm run bench`: the hot routes against a bare Fastify server measured in the same run, as
// ratios (speed is measured here, never in timed tests: docs/testing.md). The service runs as its own
// process on the embedded database (or DATABASE_URL / REDIS_URL), with rate limits raised.
// `--out FILE` saves the JSON report; `--compare FILE` prints this run's change against a saved one
// (with `--with FILE2`, two saved reports, and nothing runs); `--profile DIR` writes a CPU profile of
// the service per scenario (bench/profile.ts).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { freePort, httpRequest } from '../test/helpers/server.ts';
import { oidcClient, signIn } from '../test/helpers/browser.ts';
import { signedHeader } from '../test/helpers/payments.ts';
import { runNode, startProcess, type ServiceProcess } from '../test/helpers/process.ts';
import { noisyNeighbour, type NoisyResult } from './noisy.ts';
import { benchEnv, createUsers, hotRoutes, measure as measureOn, measureSeries, peakRssMb, seriesTable, type Measured, type Load } from './measure.ts';
import { compareReports, type GatewayFigures, type Report } from './compare.ts';
import { connectProfiler, inspectOptions, type Profiler } from './profile.ts';
import { pairedLine, pairedSlices } from './pairs.ts';
import { benchCampaign, duringCampaign } from './campaign.ts';

// render-warm-campaign and render-warm-subscribed right after render-warm: their goals are each
// within 10 % of it, so they are measured on the same heap (after webhook and noisy-org, whose
// work grows it, every route costs more), the campaign first: the subscribed scenario's events
// are still written and delivered for a while after it ends.
const SCENARIOS = [
  'baseline',
  'org-apikey',
  'org-idtoken',
  'render-warm',
  'render-warm-campaign',
  'render-warm-subscribed',
  'render-cold',
  'pixel',
  'click',
  'webhook',
  'noisy-org',
  'gateway',
] as const;
type Scenario = (typeof SCENARIOS)[number];

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    scenario: { type: 'string' },
    json: { type: 'boolean', default: false },
    users: { type: 'string', default: '2000' },
    connections: { type: 'string', default: '50' },
    // An embedded data directory to use, already migrated (the test suite's smoke run passes one,
    // saving an initdb); the caller keeps it. Default: a new temporary one, removed at the end.
    'data-dir': { type: 'string' },
    out: { type: 'string' },
    compare: { type: 'string' },
    with: { type: 'string' },
    profile: { type: 'string' },
    // The gateway scenario's length (bench/gateway.ts --duration): default the scenarios' own.
    'gateway-duration': { type: 'string' },
    // Characters added to each webhook event (a `description`): the default event is ~170 bytes, a
    // payment provider's invoice event is 3–8 KB (BENCHMARKS.md, "bytea").
    'webhook-pad': { type: 'string', default: '0' },
    // render-warm-campaign's goal compares it with render-warm: that many pairs of the two measured
    // in alternating slices of half the duration each, after the series (bench/pairs.ts; 0: none).
    pairs: { type: 'string', default: '4' },
  },
});
const readReport = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Report;
if (values.with) {
  if (!values.compare) throw new Error('--with FILE compares FILE against --compare FILE: give both');
  process.stdout.write(`${compareReports(readReport(values.compare), readReport(values.with)).join('\n')}\n`);
  process.exit(0);
}
const before = values.compare ? readReport(values.compare) : undefined;
const duration = Number(values.duration);
const connections = Number(values.connections);
const chosen = (values.scenario ? values.scenario.split(',') : [...SCENARIOS]) as Scenario[];
for (const s of chosen) if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario ${s}; known: ${SCENARIOS.join(', ')}`);
if (!chosen.includes('baseline')) chosen.unshift('baseline');
const progress = (line: string) => process.stderr.write(`${line}\n`);

const load: Load = { connections, durationS: duration, progress };
let profiler: Profiler | undefined;
const profileTops: string[] = [];
let profiled: ServiceProcess | undefined;
/** One scenario; profiled (--profile) when it drives the bench's service. */
const measure = async (name: Scenario, target: ServiceProcess, opts: Parameters<typeof measureOn>[3], success: 2 | 3 = 2) => {
  const profiling = target === profiled ? profiler : undefined;
  await profiling?.start();
  const measured = await measureOn(name, target, load, opts, success);
  if (profiling) profileTops.push(...(await profiling.stop(name)));
  return measured;
};

const dataDir = values['data-dir'] ?? mkdtempSync(join(tmpdir(), 'sigsvc-bench-'));
// The gateway's and the noisy org's services run on data directories of their own: copies of the
// one given (migrated, untouched yet), or new ones.
const spareDirs = values['data-dir']
  ? (['gateway', 'noisy'] as const).map((k) => {
      const dir = mkdtempSync(join(tmpdir(), `sigsvc-bench-${k}-`));
      cpSync(dataDir, dir, { recursive: true });
      return dir;
    })
  : [];

const env = benchEnv(dataDir, {
  SIGNIN_ATTEMPTS_PER_MINUTE: '100000',
  WEBHOOK_SECRET: 'whsec_bench',
  // render-warm-subscribed: an outbound webhook endpoint on this machine (docs/webhooks.md).
  SECRETS_KEY: randomBytes(32).toString('base64'),
  WEBHOOK_ALLOW_PRIVATE: 'true',
});
// The receiver of render-warm-subscribed's deliveries: answers at once, counts them.
let delivered = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    delivered++;
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
const procs: ServiceProcess[] = [];
try {
  progress('… seeding an org');
  const password = 'bench owner password';
  const created = await runNode(
    ['src/cli/main.ts', 'org', 'create', '--name', 'Bench Ltd', '--seats', '100000', '--owner-email', 'owner@bench.test', '--owner-password', password],
    env,
  );
  if (created.code !== 0) throw new Error(`org create: ${created.stderr}`);
  const org = JSON.parse(created.stdout) as { orgId: string; ownerUserId: string; apiKey: { key: string } };

  const servicePort = await freePort();
  const inspectPort = values.profile ? await freePort() : 0;
  const service = await startProcess(
    { ...env, BASE_URL: `http://127.0.0.1:${servicePort}`, ...(values.profile ? { NODE_OPTIONS: inspectOptions(inspectPort) } : {}) },
    servicePort,
  );
  procs.push(service);
  if (values.profile) {
    mkdirSync(values.profile, { recursive: true });
    profiler = await connectProfiler(inspectPort, values.profile);
    profiled = service;
  }
  const key = org.apiKey.key;
  const api = (method: string, path: string, body?: unknown) => httpRequest(service.url, method, path, { key, ...(body ? { body } : {}) });

  const template = await api('POST', `/v1/orgs/${org.orgId}/templates`, {
    name: 'Standard',
    // The org's default (instead of the starter template the org was created with): render-warm
    // and render-cold render it, and render-warm-campaign the same with its banner.
    isDefault: true,
    html: '<style>td{font-family:Arial,sans-serif;font-size:13px;color:#333}</style><table role="presentation"><tr><td><b>{{ user.name }}</b><br>{{ user.title }}, {{ user.department }}<br>{{ org.name }}<br><a href="mailto:{{ user.email }}">{{ user.email }}</a> · {{ user.phone }}<img src="{{ pixel_url }}" width="1" height="1" alt=""></td></tr><tr><td>{{ campaign.banner | raw }}</td></tr></table>',
    text: '{{ user.name }}\n{{ user.title }}, {{ org.name }}\n{{ user.email }} · {{ user.phone }}\n{{ campaign.text }}',
  });
  if (template.status !== 201) throw new Error(`template: ${template.text}`);
  const userCount = Number(values.users);
  progress(`… seeding ${userCount} users`);
  const userIds = await createUsers(service.url, org.orgId, key, userCount, (i) => ({
    email: `user${i}@bench.test`,
    name: `User ${i}`,
    title: 'Engineer',
    department: 'R&D',
    phone: '+44 20 7946 0000',
  }));
  const client = await oidcClient(`${service.url}/auth`, 'app-client-bench', `${service.url}/app`);
  const idToken = (await signIn(client, { username: 'owner@bench.test', password })).tokens.id_token as string;

  const baselinePort = await freePort();
  const baseline = await startProcess({}, baselinePort, { script: 'bench/baseline.ts', args: [String(baselinePort)], ready: '/' });
  procs.push(baseline);

  let cold = 0;
  let hookSeq = 0;
  let noisy: NoisyResult | undefined;
  const hot = hotRoutes(service, { orgId: org.orgId, key, userId: org.ownerUserId });
  // Signed invoice.paid events, each a new id: verified, deduplicated and applied.
  const webhookPad = Number(values['webhook-pad']);
  const webhookEvents: autocannon.Options = {
    url: `${service.url}/v1/webhooks/payment-provider`,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => {
          const body = JSON.stringify({
            id: `evt_bench_${process.pid}_${hookSeq++}`,
            type: 'invoice.paid',
            created: Math.floor(Date.now() / 1000),
            data: { object: { customer: 'cus_bench', metadata: { orgId: org.orgId }, ...(webhookPad > 0 ? { description: 'x'.repeat(webhookPad) } : {}) } },
          });
          return { ...req, body, headers: { 'content-type': 'application/json', 'provider-signature': signedHeader(body, { secret: 'whsec_bench' }) } };
        },
      },
    ],
  };
  const campaign = benchCampaign(service.url, org.orgId, key, org.ownerUserId, api);
  const runs: Record<Exclude<Scenario, 'gateway'>, () => Promise<Measured>> = {
    baseline: () => measure('baseline', baseline, { url: `${baseline.url}/` }),
    'org-apikey': () => measure('org-apikey', service, hot['org-apikey']),
    'org-idtoken': () => measure('org-idtoken', service, { url: `${service.url}/v1/orgs/${org.orgId}`, headers: { authorization: `Bearer ${idToken}` } }),
    'render-warm': () => measure('render-warm', service, hot['render-warm']),
    'render-cold': () =>
      measure('render-cold', service, {
        url: service.url,
        requests: [
          {
            method: 'POST',
            headers: { 'x-api-key': key },
            setupRequest: (req) => ({ ...req, path: `/v1/orgs/${org.orgId}/render/${userIds[cold++ % userIds.length]}` }),
          },
        ],
      }),
    pixel: () => measure('pixel', service, hot.pixel),
    // render-warm again, with an endpoint subscribed to signature.rendered: each render is an event,
    // buffered and written in batches, and delivered to a receiver on this machine meanwhile.
    'render-warm-subscribed': async () => {
      const endpoint = await api('POST', `/v1/orgs/${org.orgId}/webhook-endpoints`, { url: receiverUrl, events: ['signature.rendered'] });
      if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.text}`);
      const measured = await measure('render-warm-subscribed', service, hot['render-warm']);
      await api('DELETE', `/v1/orgs/${org.orgId}/webhook-endpoints/${endpoint.body.endpointId}`);
      progress(`… ${delivered} signature.rendered deliveries received by the end of the run`);
      return measured;
    },
    // render-warm (the same request, the same template) while a campaign for everyone is active:
    // its banner is in the template (bench/campaign.ts).
    'render-warm-campaign': async () => duringCampaign(await campaign(), () => measure('render-warm-campaign', service, hot['render-warm'])),
    // The banner's tracked link: verified, judged and recorded (written in batches), answered 302.
    click: async () => duringCampaign(await campaign(), (clickUrl) => measure('click', service, { url: clickUrl }, 3)),
    // The quiet org's latency while another org floods (bench/noisy.ts): its own service process.
    'noisy-org': async () => {
      noisy = await noisyNeighbour(load, spareDirs[1]);
      return noisy.quiet;
    },
    webhook: () => measure('webhook', service, webhookEvents),
  };
  // render-warm and render-warm-campaign alternated (bench/pairs.ts): the campaign is started before
  // each campaign slice and ended after it, and each slice follows a few hundred renders that fill
  // the caches for what it renders (a start or an end changes the outputs' keys).
  const campaignAgainstPlain = (pairs: number) => {
    const sliceS = duration / 2;
    const slice = async (name: 'render-warm' | 'render-warm-campaign') => {
      await autocannon({ ...hot['render-warm'], connections: 1, amount: 200 });
      return measureOn(name, service, { ...load, durationS: sliceS }, hot['render-warm']);
    };
    return pairedSlices({ a: 'render-warm', b: 'render-warm-campaign', sliceS }, pairs, {
      a: () => slice('render-warm'),
      b: async () => duringCampaign(await campaign(), () => slice('render-warm-campaign')),
    });
  };
  // A new process answers its first requests slowly (V8 compiles, caches fill): a few hundred
  // requests of the hot routes and a few webhook events first, so that no scenario measures it.
  // At once: each autocannon run ends on its one-second tick, however few its requests.
  progress('… warming the service up');
  await Promise.all([
    ...[hot['org-apikey'], hot['render-warm'], hot.pixel].map((route) => autocannon({ ...route, connections: 1, amount: 200 })),
    ...(chosen.includes('webhook') ? [autocannon({ ...webhookEvents, connections: 1, amount: 20 })] : []),
  ]);
  const scenarios = await measureSeries(
    chosen.filter((n) => n !== 'baseline' && n !== 'gateway'),
    (name) => runs[name as Exclude<Scenario, 'gateway'>](),
    runs.baseline,
  );
  const campaignPairs =
    Number(values.pairs) > 0 && chosen.includes('render-warm-campaign') && chosen.includes('render-warm')
      ? await campaignAgainstPlain(Number(values.pairs))
      : undefined;
  const rssMb = peakRssMb(service.pid);
  const gateway = chosen.includes('gateway') ? await gatewayScenario() : undefined;
  const report = {
    node: process.version,
    cpus: cpus().length,
    database: process.env.DATABASE_URL ? 'postgres' : 'embedded',
    durationS: duration,
    connections,
    scenarios,
    rssMb,
    ...(noisy ? { noisy } : {}),
    ...(gateway ? { gateway } : {}),
    ...(campaignPairs ? { campaignPairs } : {}),
  };
  if (values.out) writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
  if (values.profile) writeFileSync(join(values.profile, 'top.md'), `${profileTops.join('\n')}\n`);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(
      [
        `Node ${report.node}, ${report.cpus} CPUs, ${report.database} database, ${connections} connections, ${duration} s each`,
        ...seriesTable(scenarios),
        `peak RSS of the service: ${rssMb} MB`,
        ...(campaignPairs ? [pairedLine(campaignPairs, 'within 10 %')] : []),
        ...(noisy
          ? [
              `noisy-org: the quiet org's p50 / p99 ${noisy.quiet.p50Ms} / ${noisy.quiet.p99Ms} ms under noise, ${noisy.quietIdleP50Ms} / ${noisy.quietIdleP99Ms} ms idle (p99 ${(noisy.quiet.p99Ms / (noisy.quietIdleP99Ms || 1)).toFixed(2)}×); ` +
                `the noisy org sent ${noisy.noisyRps} req/s, ${(noisy.noisyRefused * 100).toFixed(1)} % refused by its bucket`,
            ]
          : []),
        ...(gateway
          ? [
              `gateway: stamped ${gateway.stamped.messagesPerS} messages/s (p50 / p99 ${gateway.stamped.p50Ms} / ${gateway.stamped.p99Ms} ms) against ` +
                `${gateway.passThrough.messagesPerS} passed through (${gateway.passThrough.p50Ms} / ${gateway.passThrough.p99Ms} ms): ratio ${gateway.ratio}`,
            ]
          : []),
        '',
      ].join('\n'),
    );
  }
  // On stderr under --json, which keeps stdout one JSON document.
  if (before) (values.json ? process.stderr : process.stdout).write(`\nAgainst ${values.compare}:\n${compareReports(before, report).join('\n')}\n`);
  if (values.profile) progress(`… CPU profiles of the service in ${values.profile} (top frames: ${join(values.profile, 'top.md')})`);
  const bad = scenarios.filter((s) => s.errors > 0 || s.non2xx > 0).map((s) => s.name);
  if (gateway && (gateway.stamped.errors > 0 || gateway.passThrough.errors > 0)) bad.push('gateway');
  if (bad.length) {
    progress(`errors or unexpected answers in: ${bad.join(', ')} (a benchmark with errors is not a result)`);
    process.exitCode = 1;
  }
} finally {
  profiler?.close();
  await Promise.all(procs.map((p) => p.stop()));
  receiver.closeAllConnections();
  receiver.close();
  if (!values['data-dir']) rmSync(dataDir, { recursive: true, force: true });
  for (const dir of spareDirs) rmSync(dir, { recursive: true, force: true });
}

/** The gateway scenario: `bench/gateway.ts --json` as a child process (its own service), folded in. */
async function gatewayScenario(): Promise<GatewayFigures> {
  const seconds = values['gateway-duration'] ?? String(duration);
  progress(`… gateway: bench/gateway.ts, ${seconds} s of alternating slices`);
  const args = ['bench/gateway.ts', '--json', '--duration', seconds, '--clients', String(Math.min(20, connections)), '--big-mb', '1'];
  if (spareDirs[0]) args.push('--data-dir', spareDirs[0]);
  const stores = Object.fromEntries(Object.entries({ DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL }).filter(([, v]) => v));
  const res = await runNode(args, stores, 600_000);
  if (res.code !== 0) throw new Error(`bench/gateway.ts exited with ${res.code}: ${res.stderr}`);
  const { throughput: t } = JSON.parse(res.stdout) as {
    throughput: { ratio: number; stamped: GatewayFigures['stamped']; baseline: GatewayFigures['passThrough'] };
  };
  return { ratio: t.ratio, stamped: t.stamped, passThrough: t.baseline };
}
