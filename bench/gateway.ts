// `npm run bench:gateway`: the SMTP signature gateway (docs/gateway.md) as its own process (the
// service with GATEWAY_PORT set, on the embedded database or DATABASE_URL), relaying to a sink in
// this process that discards what it gets.
// - Throughput: `--clients` (20) nodemailer clients, each sending 20 KB HTML messages one after
//   another for `--duration` seconds: messages/s and the latency of a message (client's view,
//   p50 and p99), for messages stamped (the sender is a user) against a pass-through baseline
//   measured in the same run on the same listener (the sender is not a user: the gateway reads,
//   checks and relays the message without stamping it), slices alternating; and the service's CPU
//   time per message (from /proc), the steadier figure on a shared machine.
// - Memory: one message of `--big-mb` (50) MB (an HTML body and a binary attachment), stamped; the
//   service's RSS growth while it passes (sampled from /proc every 20 ms).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { freePort, httpRequest } from '../test/helpers/server.ts';
import { runNode, startProcess, type ServiceProcess } from '../test/helpers/process.ts';
import { startDns } from '../test/helpers/dns.ts';
import { benchEnv } from './measure.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    clients: { type: 'string', default: '20' },
    'big-mb': { type: 'string', default: '50' },
    json: { type: 'boolean', default: false },
    // An embedded data directory to use, already migrated (the smoke test passes one, saving an
    // initdb); the caller keeps it. Default: a new temporary one, removed at the end.
    'data-dir': { type: 'string' },
  },
});
const durationS = Number(values.duration);
const clients = Number(values.clients);
const bigMb = Number(values['big-mb']);
const progress = (line: string) => process.stderr.write(`${line}\n`);

// The next hop: counts and discards.
let relayed = 0;
const sink = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  size: 200 * 1024 * 1024,
  onData(stream, _session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => {
      relayed++;
      callback();
    });
  },
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', () => resolve()));
const sinkPort = (sink.server.address() as { port: number }).port;
const dns = await startDns();

const dataDir = values['data-dir'] ?? mkdtempSync(join(tmpdir(), 'sigsvc-bench-gateway-'));
const gatewayPort = await freePort();
const env = benchEnv(dataDir, {
  SECRETS_KEY: randomBytes(32).toString('base64'),
  GATEWAY_PORT: String(gatewayPort),
  GATEWAY_ALLOW_PRIVATE_NEXT_HOP: 'true',
  GATEWAY_MAX_BYTES: String((bigMb + 10) * 1024 * 1024),
  DNS_SERVERS: dns.server,
});
let service: ServiceProcess | undefined;
try {
  progress('… seeding an org, its domain, a user and the gateway');
  // Names of this run's own: on PostgreSQL the database may hold an earlier run's org, or `npm run
  // bench`'s (its owner is owner@bench.test), and an email or a verified domain belongs to one org.
  const run = randomBytes(4).toString('hex');
  const created = await runNode(
    ['src/cli/main.ts', 'org', 'create', '--name', 'Bench Mail Ltd', '--seats', '1000', '--owner-email', `owner-gw-${run}@bench.test`],
    env,
  );
  if (created.code !== 0) throw new Error(`org create: ${created.stderr}`);
  const org = JSON.parse(created.stdout) as { orgId: string; apiKey: { key: string } };
  const port = await freePort();
  service = await startProcess({ ...env, BASE_URL: `http://127.0.0.1:${port}` }, port);
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await httpRequest(service!.url, method, path, { key: org.apiKey.key, ...(body ? { body } : {}) });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const domain = `bench-gw-${run}.example`;
  const claimed = await api('POST', `/v1/orgs/${org.orgId}/domains`, { domain });
  dns.setTxt(claimed.verificationRecord.name, [claimed.verificationRecord.value]);
  await api('POST', `/v1/orgs/${org.orgId}/domains/${domain}/verify`);
  await api('POST', `/v1/orgs/${org.orgId}/users`, { email: `ada@${domain}`, name: 'Ada Lovelace', title: 'Engineer' });
  const gw = await api('PUT', `/v1/orgs/${org.orgId}/integrations/gateway`, {
    nextHop: { host: '127.0.0.1', port: sinkPort, secure: false },
    allowedNetworks: [],
    stampInternal: false,
  });

  const html = `<html><body>${'<p>Numbers, tables and the engine: a paragraph of a long message. </p>\n'.repeat(280)}</body></html>`;
  const message = (from: string) => ({ from, to: 'grace@ext.example', subject: 'Bench', html, text: 'A long message.' });
  const transports = Array.from({ length: clients }, () =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port: gatewayPort,
      secure: false,
      ignoreTLS: true,
      pool: true,
      maxConnections: 1,
      auth: { user: gw.gatewayId, pass: gw.password },
    } as Parameters<typeof nodemailer.createTransport>[0]),
  );

  /** The service's CPU time so far (user + system, ms): fields 14 and 15 of /proc/<pid>/stat, in ticks of 1/100 s. */
  const clockTicks = 100;
  const serviceCpuMs = () => {
    const stat = readFileSync(`/proc/${service?.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  };

  /** `clients` senders for `seconds`: messages/s and latencies (ms). */
  async function slice(from: string, seconds: number) {
    const latencies: number[] = [];
    let errors = 0;
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      transports.map(async (t) => {
        while (performance.now() < end) {
          const t0 = performance.now();
          try {
            await t.sendMail(message(from));
            latencies.push(performance.now() - t0);
          } catch {
            errors++;
          }
        }
      }),
    );
    return { messages: latencies.length, errors, latencies };
  }
  const pct = (xs: number[], p: number) => {
    const s = [...xs].sort((x, y) => x - y);
    return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
  };

  progress('… warming up');
  const warmS = Math.min(1, durationS / 4);
  await slice(`ada@${domain}`, warmS);
  await slice(`printer@${domain}`, warmS);
  // Alternating slices, so that drift (the machine, the database's growth) falls on both alike.
  const totals = {
    stamped: { messages: 0, errors: 0, latencies: [] as number[], seconds: 0, cpuMs: 0 },
    passed: { messages: 0, errors: 0, latencies: [] as number[], seconds: 0, cpuMs: 0 },
  };
  const rounds = 4;
  for (let i = 0; i < rounds; i++) {
    for (const [kind, from] of [
      ['passed', `printer@${domain}`],
      ['stamped', `ada@${domain}`],
    ] as const) {
      const t0 = performance.now();
      const cpu0 = serviceCpuMs();
      const r = await slice(from, durationS / rounds / 2);
      const t = totals[kind];
      t.cpuMs += serviceCpuMs() - cpu0;
      t.messages += r.messages;
      t.errors += r.errors;
      t.latencies.push(...r.latencies);
      t.seconds += (performance.now() - t0) / 1000;
      progress(`  ${kind}: ${(r.messages / ((performance.now() - t0) / 1000)).toFixed(0)} messages/s`);
    }
  }
  for (const t of transports) t.close();
  const rate = (k: 'stamped' | 'passed') => totals[k].messages / totals[k].seconds;
  const figures = (k: 'stamped' | 'passed') => ({
    messagesPerS: Math.round(rate(k)),
    messages: totals[k].messages,
    p50Ms: +pct(totals[k].latencies, 50).toFixed(1),
    p99Ms: +pct(totals[k].latencies, 99).toFixed(1),
    // The service's CPU time per message (user + system): steadier than messages/s when other work shares the machine.
    cpuMsPerMessage: +(totals[k].cpuMs / Math.max(1, totals[k].messages)).toFixed(2),
    errors: totals[k].errors,
  });
  const baseline = figures('passed');
  const stamped = figures('stamped');
  const throughput = {
    clients,
    messageBytes: Buffer.byteLength(html),
    seconds: durationS,
    baseline,
    stamped,
    /** stamped messages/s ÷ pass-through messages/s (goal ≥ 0.7). */
    ratio: +(rate('stamped') / rate('passed')).toFixed(2),
    /** pass-through CPU per message ÷ stamped CPU per message: the same ratio in CPU, less noisy. */
    cpuRatio: +(baseline.cpuMsPerMessage / stamped.cpuMsPerMessage).toFixed(2),
    addedLatencyMs: { p50: +(stamped.p50Ms - baseline.p50Ms).toFixed(1), p99: +(stamped.p99Ms - baseline.p99Ms).toFixed(1) },
    goal: { ratio: 0.7 },
  };

  progress(`… one ${bigMb} MB message`);
  const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${service!.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  const before = rssMb();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 20);
  const attachment = randomBytes(Math.floor(bigMb * 1024 * 1024 * 0.74));
  const big = nodemailer.createTransport({
    host: '127.0.0.1',
    port: gatewayPort,
    secure: false,
    ignoreTLS: true,
    auth: { user: gw.gatewayId, pass: gw.password },
  } as Parameters<typeof nodemailer.createTransport>[0]);
  const t0 = performance.now();
  const relayedBefore = relayed;
  const info = (await big.sendMail({ ...message(`ada@${domain}`), attachments: [{ filename: 'big.bin', content: attachment }] })) as {
    response: string;
    messageSize?: number;
  };
  const bigMs = performance.now() - t0;
  clearInterval(sampler);
  big.close();
  const bigResult = {
    megabytes: bigMb,
    reply: info.response.slice(0, 3),
    relayed: relayed - relayedBefore,
    seconds: +(bigMs / 1000).toFixed(1),
    rssBeforeMb: Math.round(before),
    rssPeakMb: Math.round(peak),
    rssGrowthMb: Math.round(peak - before),
  };

  const result = {
    scenario: 'gateway',
    description: 'SMTP gateway: stamped vs pass-through on one listener (alternating slices), and one large message stamped',
    throughput,
    big: { ...bigResult, goal: { rssGrowthMb: 64 } },
    meetsGoals: { ratio: throughput.ratio >= 0.7, cpuRatio: throughput.cpuRatio >= 0.7, rssGrowth: bigResult.rssGrowthMb <= 64 },
  };
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    process.stdout.write(
      [
        `gateway, ${clients} clients, ${throughput.messageBytes} B HTML messages, ${durationS} s in alternating slices`,
        `  pass-through baseline: ${baseline.messagesPerS} messages/s, p50 ${baseline.p50Ms} ms, p99 ${baseline.p99Ms} ms, ${baseline.cpuMsPerMessage} ms CPU/message`,
        `  stamped:               ${stamped.messagesPerS} messages/s, p50 ${stamped.p50Ms} ms, p99 ${stamped.p99Ms} ms, ${stamped.cpuMsPerMessage} ms CPU/message`,
        `  ratio ${throughput.ratio} (CPU ratio ${throughput.cpuRatio}; goal ≥ 0.7)`,
        `  added latency: p50 ${throughput.addedLatencyMs.p50} ms, p99 ${throughput.addedLatencyMs.p99} ms`,
        `${bigMb} MB message: ${bigResult.reply} in ${bigResult.seconds} s, RSS ${bigResult.rssBeforeMb} → ${bigResult.rssPeakMb} MB (growth ${bigResult.rssGrowthMb} MB; goal ≤ 64)`,
        '',
      ].join('\n'),
    );
  }
} finally {
  await service?.stop();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
  await dns.close();
  if (!values['data-dir']) rmSync(dataDir, { recursive: true, force: true });
}
