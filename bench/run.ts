// `npm run bench`: the hot routes against a bare Fastify server measured in the same run, as
// ratios (speed is measured here, never in timed tests: docs/testing.md). The service runs as its own
// process on the embedded database (or DATABASE_URL / REDIS_URL), with rate limits raised.
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, httpRequest } from '../test/helpers/server.ts';
import { oidcClient, signIn } from '../test/helpers/browser.ts';
import { signedHeader } from '../test/helpers/payments.ts';
import { runNode, startProcess, type ServiceProcess } from '../test/helpers/process.ts';
import { noisyNeighbour, type NoisyResult } from './noisy.ts';
import { benchEnv, hotRoutes, measure as measureOn, measureSeries, peakRssMb, seriesTable, type Measured, type Load } from './measure.ts';

const SCENARIOS = ['baseline', 'org-apikey', 'org-idtoken', 'render-warm', 'render-cold', 'pixel', 'webhook', 'noisy-org', 'render-warm-subscribed'] as const;
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
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const chosen = (values.scenario ? values.scenario.split(',') : [...SCENARIOS]) as Scenario[];
for (const s of chosen) if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario ${s}; known: ${SCENARIOS.join(', ')}`);
if (!chosen.includes('baseline')) chosen.unshift('baseline');
const progress = (line: string) => process.stderr.write(`${line}\n`);

const load: Load = { connections, durationS: duration, progress };
const measure = (name: Scenario, target: ServiceProcess, opts: Parameters<typeof measureOn>[3]) => measureOn(name, target, load, opts);

const dataDir = values['data-dir'] ?? mkdtempSync(join(tmpdir(), 'sigsvc-bench-'));
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
  const service = await startProcess({ ...env, BASE_URL: `http://127.0.0.1:${servicePort}` }, servicePort);
  procs.push(service);
  const key = org.apiKey.key;
  const api = (method: string, path: string, body?: unknown) => httpRequest(service.url, method, path, { key, ...(body ? { body } : {}) });

  const template = await api('POST', `/v1/orgs/${org.orgId}/templates`, {
    name: 'Standard',
    html: '<style>td{font-family:Arial,sans-serif;font-size:13px;color:#333}</style><table role="presentation"><tr><td><b>{{ user.name }}</b><br>{{ user.title }}, {{ user.department }}<br>{{ org.name }}<br><a href="mailto:{{ user.email }}">{{ user.email }}</a> · {{ user.phone }}<img src="{{ pixel_url }}" width="1" height="1" alt=""></td></tr></table>',
    text: '{{ user.name }}\n{{ user.title }}, {{ org.name }}\n{{ user.email }} · {{ user.phone }}',
  });
  if (template.status !== 201) throw new Error(`template: ${template.text}`);
  const userCount = Number(values.users);
  progress(`… seeding ${userCount} users`);
  const userIds: string[] = [];
  for (let i = 0; i < userCount; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, userCount - i) }, (_, j) =>
        api('POST', `/v1/orgs/${org.orgId}/users`, {
          email: `user${i + j}@bench.test`,
          name: `User ${i + j}`,
          title: 'Engineer',
          department: 'R&D',
          phone: '+44 20 7946 0000',
        }),
      ),
    );
    for (const r of batch) userIds.push(r.body.userId);
  }
  const client = await oidcClient(`${service.url}/auth`, 'app-client-bench', `${service.url}/app`);
  const idToken = (await signIn(client, { username: 'owner@bench.test', password })).tokens.id_token as string;

  const baselinePort = await freePort();
  const baseline = await startProcess({}, baselinePort, { script: 'bench/baseline.ts', args: [String(baselinePort)], ready: '/' });
  procs.push(baseline);

  let cold = 0;
  let hookSeq = 0;
  let noisy: NoisyResult | undefined;
  const hot = hotRoutes(service, { orgId: org.orgId, key, userId: org.ownerUserId });
  const runs: Record<Scenario, () => Promise<Measured>> = {
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
    // The quiet org's latency while another org floods (bench/noisy.ts): its own service process.
    'noisy-org': async () => {
      noisy = await noisyNeighbour(load);
      return noisy.quiet;
    },
    webhook: () =>
      measure('webhook', service, {
        url: `${service.url}/v1/webhooks/payment-provider`,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => {
              const body = JSON.stringify({
                id: `evt_bench_${process.pid}_${hookSeq++}`,
                type: 'invoice.paid',
                created: Math.floor(Date.now() / 1000),
                data: { object: { customer: 'cus_bench', metadata: { orgId: org.orgId } } },
              });
              return { ...req, body, headers: { 'content-type': 'application/json', 'provider-signature': signedHeader(body, { secret: 'whsec_bench' }) } };
            },
          },
        ],
      }),
  };
  const scenarios = await measureSeries(
    chosen.filter((n) => n !== 'baseline'),
    (name) => runs[name as Scenario](),
    runs.baseline,
  );
  const rssMb = peakRssMb(service.pid);
  const report = {
    node: process.version,
    cpus: cpus().length,
    database: process.env.DATABASE_URL ? 'postgres' : 'embedded',
    durationS: duration,
    connections,
    scenarios,
    rssMb,
    ...(noisy ? { noisy } : {}),
  };
  if (values.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(
      [
        `Node ${report.node}, ${report.cpus} CPUs, ${report.database} database, ${connections} connections, ${duration} s each`,
        ...seriesTable(scenarios),
        `peak RSS of the service: ${rssMb} MB`,
        ...(noisy
          ? [
              `noisy-org: the quiet org's p50 / p99 ${noisy.quiet.p50Ms} / ${noisy.quiet.p99Ms} ms under noise, ${noisy.quietIdleP50Ms} / ${noisy.quietIdleP99Ms} ms idle (p99 ${(noisy.quiet.p99Ms / (noisy.quietIdleP99Ms || 1)).toFixed(2)}×); ` +
                `the noisy org sent ${noisy.noisyRps} req/s, ${(noisy.noisyRefused * 100).toFixed(1)} % refused by its bucket`,
            ]
          : []),
        '',
      ].join('\n'),
    );
  }
  const bad = scenarios.filter((s) => s.errors > 0 || s.non2xx > 0);
  if (bad.length) {
    progress(`errors or non-2xx answers in: ${bad.map((s) => s.name).join(', ')} (a benchmark with errors is not a result)`);
    process.exitCode = 1;
  }
} finally {
  await Promise.all(procs.map((p) => p.stop()));
  receiver.closeAllConnections();
  receiver.close();
  if (!values['data-dir']) rmSync(dataDir, { recursive: true, force: true });
}
