// `node bench/gateway-engine.ts [messages]`: the gateway's engine alone (src/gateway/engine.ts), in
// this process, without SMTP on either side: CPU time per 20 KB HTML message (the one
// bench/gateway.ts sends) read, decided and handed to the relay, stamped (the sender is a user)
// against passed (not a user), in alternating rounds. The lookups answer from memory and the relay
// reads the message to its end: what is measured is the engine's own work (one pass of
// mailsplit, the stamping), the steadiest figure on a shared machine. Prints one JSON line a round.
import { Readable } from 'node:stream';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { createEngine } from '../src/gateway/engine.ts';
import type { Relay } from '../src/gateway/relay.ts';
import { Spool } from '../src/gateway/spool.ts';
import type { GatewaySettingsRow } from '../src/store/schema.ts';
import type { Logger } from '../src/log.ts';

const messages = Number(process.argv[2] ?? 1000);
const html = `<html><body>${'<p>Numbers, tables and the engine: a paragraph of a long message. </p>\n'.repeat(280)}</body></html>`;
const build = (from: string) => new MailComposer({ from, to: 'grace@ext.example', subject: 'Bench', html, text: 'A long message.' }).compile().build();
const signature = {
  html: '<div class="sigsvc-signature sigsvc-u1"><table><tr><td><b>Ada Lovelace</b><br>Engineer<br><a href="https://bench.example">bench</a></td></tr></table></div>',
  text: 'Ada Lovelace\nEngineer',
};
const settings = { org_id: 'o1', stamp_internal: false, version: 1 } as GatewaySettingsRow;
const silent = { child: () => silent, info() {}, warn() {}, error() {} } as unknown as Logger;
const relay: Relay = {
  async send(_settings, _envelope, parts) {
    for (const part of parts) if (!Buffer.isBuffer(part)) for await (const _chunk of part.open());
    return { code: 250, message: 'OK' };
  },
  close() {},
};
const engine = createEngine({
  logger: silent,
  clock: () => new Date(),
  hostname: 'gateway.bench',
  failClosed: false,
  relay,
  signatureFor: async () => signature,
  record: async () => {},
  lookups: {
    settings: async () => settings,
    orgsOfTenant: async () => [],
    verifiedDomains: async () => ['bench.example'],
    verifiedOwner: async () => undefined,
    liveUser: async (_org, email) => (email.startsWith('ada@') ? { id: 'u1' } : undefined),
  },
});
const senders = { stamped: 'ada@bench.example', passed: 'printer@bench.example' } as const;
const raw = { stamped: await build(senders.stamped), passed: await build(senders.passed) };
const proof = { remoteAddress: '127.0.0.1', helo: 'bench', provenOrg: 'o1', networks: [] };

async function round(kind: 'stamped' | 'passed', n: number) {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const spool = new Spool();
    await spool.fill(Readable.from([raw[kind]]));
    const reply = await engine.handle(proof, { from: senders[kind], to: ['grace@ext.example'], use8BitMime: false }, spool, 'bench');
    if (reply.outcome !== kind) throw new Error(`${kind}: ${reply.outcome} ${reply.message}`);
    await spool.dispose();
  }
  const used = process.cpuUsage(cpu);
  return { cpuMsPerMessage: +((used.user + used.system) / 1000 / n).toFixed(3), wallMsPerMessage: +((performance.now() - t0) / n).toFixed(3) };
}

await round('stamped', 100);
await round('passed', 100);
for (let i = 0; i < 3; i++) {
  const passed = await round('passed', messages);
  const stamped = await round('stamped', messages);
  process.stdout.write(`${JSON.stringify({ messages, passed, stamped, addedCpuMs: +(stamped.cpuMsPerMessage - passed.cpuMsPerMessage).toFixed(3) })}\n`);
}
