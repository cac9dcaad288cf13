// The SMTP gateway's relay and who may use it (docs/gateway.md, "Who may relay" and "Delivery"),
// end to end through the real listener to a real smtp-server next hop: recipients the next hop
// refuses (all recipients or none), the envelope's parameters kept (8BITMIME, SMTPUTF8), the null
// sender, a message with more parts than the stamper reads, owned ranges that overlap another
// org's, and the connections one client address may hold.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import type { TestServer } from './helpers/server.ts';
import { client, rawSession, sendRaw, startGatewaySuite, type GatewayOrg, type Sink } from './helpers/gateway.ts';
import { waitFor } from './helpers/wait.ts';

const TENANT_B = '0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d';
const PER_ADDRESS = 4;

const stampedHeader = (raw: Buffer) => /^X-Sigsvc-Stamped: (.*)$/im.exec(raw.toString('latin1'))?.[1]?.trim();

describe('the SMTP gateway: relay, envelope and who may relay', () => {
  let server: TestServer;
  let sink: Sink;
  let port: number;
  let a: GatewayOrg;
  let b: GatewayOrg;
  let close: () => Promise<void>;
  let sent = 0;
  before(async () => {
    ({ server, sink, port, a, b, close } = await startGatewaySuite({
      env: { GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS) },
      a: { domain: 'relay-a.example' },
      b: { domain: 'relay-b.example', m365TenantId: TENANT_B },
      sharedSink: true,
    }));
  });
  after(() => close());

  const asA = () => client(port, { user: a.gatewayId, pass: a.password });
  const plain = (from: string) => Buffer.from(`From: ${from}\r\nTo: grace@ext.example\r\nSubject: x\r\n\r\nHi.\r\n`);
  const put = (org: GatewayOrg, allowedNetworks: unknown[], m365TenantId?: string) =>
    server.request('PUT', `/v1/orgs/${org.orgId}/integrations/gateway`, {
      key: org.key,
      body: {
        nextHop: { host: '127.0.0.1', port: sink.port, secure: false },
        allowedNetworks,
        stampInternal: false,
        ...(m365TenantId ? { m365TenantId } : {}),
      },
    });

  test('one client address holds at most GATEWAY_MAX_CONNECTIONS_PER_ADDRESS connections; the next hears 421 4.7.0', async () => {
    const held = [];
    for (let i = 0; i < PER_ADDRESS; i++) held.push(await rawSession(port));
    // The next one hears 421 and is closed.
    const extra = connect(port, '127.0.0.1');
    let heard = '';
    extra.on('data', (d: Buffer) => (heard += d.toString('latin1')));
    await once(extra, 'close');
    assert.match(heard, /^421 4\.7\.0 Too many connections from your address/);
    for (const s of held) s.socket.destroy();
    // Once they are gone, the address may connect again.
    await waitFor(
      async () => {
        const s = await rawSession(port);
        const ok = /^250/m.test(await s.command('EHLO again.example'));
        s.socket.destroy();
        return ok || undefined;
      },
      'a connection after the others closed',
      5_000,
    );
  });

  test('a recipient the next hop refuses: nothing is relayed to anyone; a 4xx stays a 4xx, else the 5xx', async () => {
    const to = (...names: string[]) => names.map((n) => `${n}@ext.example`);
    const cases = [
      { to: to('grace', 'reject450', 'reject550'), code: 450, text: /4\.2\.2 mailbox full.*reject450@ext\.example.*1 other/ },
      { to: to('grace', 'reject450'), code: 450, text: /mailbox full/ },
      { to: to('grace', 'reject550'), code: 550, text: /5\.1\.1 no such user.*reject550@ext\.example/ },
      { to: to('reject550'), code: 550, text: /no such user/ },
    ];
    for (const c of cases) {
      const res = await sendRaw(asA(), { from: a.user.email, to: c.to }, plain(a.user.email));
      assert.equal(res.code, c.code, `${c.to.join(',')}: ${res.response}`);
      assert.match(res.response, c.text);
    }
    // The next message, to grace alone, is the first the next hop got.
    const ok = await sendRaw(asA(), { from: a.user.email, to: to('grace') }, plain(a.user.email));
    assert.equal(ok.code, 250, ok.response);
    const got = await sink.next(++sent);
    assert.deepEqual(got.to, to('grace'));
    assert.equal(sink.messages.length, sent, 'nothing arrived for the refused messages');
  });

  test('a connection that delivered is kept for the next message; one the next hop closed meanwhile is replaced, the client none the wiser', async () => {
    const send = async () => {
      const res = await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, plain(a.user.email));
      assert.equal(res.code, 250, res.response);
      return sink.next(++sent);
    };
    await send();
    await send();
    const [first, second] = sink.sessions.slice(-2);
    assert.equal(second, first, "the second message on the first one's connection");
    sink.dropAll();
    await send();
    const third = sink.sessions.at(-1);
    assert.notEqual(third, first, 'a new connection once the kept one was closed');
    // Closed as the relay wrote its MAIL FROM: the message goes on a new connection.
    sink.dropReused();
    await send();
    assert.notEqual(sink.sessions.at(-1), third, 'and once more when it closed as the relay wrote');
  });

  test('8BITMIME in any case and SMTPUTF8 are passed on to the next hop', async () => {
    const s = await rawSession(port);
    await s.command('EHLO client.example');
    assert.match(await s.command(`AUTH PLAIN ${Buffer.from(`\0${a.gatewayId}\0${a.password}`).toString('base64')}`), /^235/m);
    assert.match(await s.command(`MAIL FROM:<${a.user.email}> BODY=8bitmime SMTPUTF8`), /^250/m);
    assert.match(await s.command('RCPT TO:<grace@ext.example>'), /^250/m);
    assert.match(await s.command('DATA'), /^354/m);
    s.write(Buffer.from(`From: ${a.user.email}\r\nTo: grace@ext.example\r\nSubject: Grüße aus Köln\r\n\r\nTschüß.\r\n.\r\n`, 'utf8'));
    assert.match(await s.reply(), /^250/m);
    await s.command('QUIT');
    const got = await sink.next(++sent);
    assert.equal(got.args.BODY, '8BITMIME');
    assert.equal(got.args.SMTPUTF8, true);
    assert.match(got.raw.toString('utf8'), /Subject: Grüße aus Köln/);
  });

  test("the null sender <>: its From must be in the org's verified domains", async () => {
    const dialogue = async (from: string) => {
      const s = await rawSession(port);
      await s.command('EHLO client.example');
      await s.command(`AUTH PLAIN ${Buffer.from(`\0${b.gatewayId}\0${b.password}`).toString('base64')}`);
      assert.match(await s.command('MAIL FROM:<>'), /^250/m);
      assert.match(await s.command('RCPT TO:<grace@ext.example>'), /^250/m);
      await s.command('DATA');
      s.write(`From: ${from}\r\nTo: grace@ext.example\r\nSubject: receipt\r\n\r\nRead.\r\n.\r\n`);
      const reply = await s.reply();
      await s.command('QUIT');
      return reply;
    };
    const foreign = await dialogue('noreply@gmail.com');
    assert.match(foreign, /^550 5\.7\.1 .*null sender/m);
    const ours = await dialogue(`postmaster@${b.domain}`);
    assert.match(ours, /^250/m);
    const got = await sink.next(++sent);
    assert.equal(got.from, '');
    assert.equal(stampedHeader(got.raw), `${b.orgId}; passed`);
    assert.equal(sink.messages.length, sent, 'the foreign one was not relayed');
  });

  test('a message with more MIME parts than the stamper reads passes unchanged, not bounced', async () => {
    const boundary = 'many-parts';
    const pdf = Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64');
    const parts = [`--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nThe files.\r\n`];
    for (let i = 0; i < 510; i++) {
      parts.push(
        `--${boundary}\r\nContent-Type: application/pdf; name="f${i}.pdf"\r\nContent-Disposition: attachment; filename="f${i}.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\n${pdf}\r\n`,
      );
    }
    const raw = Buffer.from(
      `From: ${a.user.email}\r\nTo: grace@ext.example\r\nSubject: files\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="${boundary}"\r\n\r\n${parts.join('')}--${boundary}--\r\n`,
    );
    const res = await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, raw);
    assert.equal(res.code, 250, res.response);
    const got = await sink.next(++sent);
    assert.equal(stampedHeader(got.raw), `${a.orgId}; passed`);
    const text = got.raw.toString('latin1');
    assert.deepEqual(got.raw.subarray(text.indexOf('From: ')), raw, 'byte for byte after the fields the gateway added');
  });

  test('ranges: none wider than /8 or /32; an owned range that another org lists too does not name the org, the tenant header does', async () => {
    for (const wide of ['0.0.0.0/0', '::/0', '10.0.0.0/7', '2001:db8::/31', '::ffff:0:0/96', '::/64', { cidr: '0.0.0.0/0', shared: true }]) {
      const res = await put(a, [wide]);
      assert.equal(res.status, 400, `${JSON.stringify(wide)}: ${res.text}`);
      assert.equal(res.body.error.code, 'BAD_REQUEST');
      assert.match(res.body.error.message, /wider than/);
    }
    assert.equal((await put(b, [{ cidr: '127.0.0.0/8', shared: true }], TENANT_B)).status, 200);
    assert.equal((await put(a, ['127.0.0.1/32'])).status, 200);
    try {
      const tenantMessage = Buffer.concat([Buffer.from(`X-MS-Exchange-CrossTenant-Id: ${TENANT_B}\r\n`), plain(b.user.email)]);
      const res = await sendRaw(client(port), { from: b.user.email, to: ['grace@ext.example'] }, tenantMessage);
      assert.equal(res.code, 250, res.response);
      assert.equal(stampedHeader((await sink.next(++sent)).raw), `${b.orgId}; stamped`);
      const noProof = await sendRaw(client(port), { from: a.user.email, to: ['grace@ext.example'] }, plain(a.user.email));
      assert.equal(noProof.code, 550, noProof.response);
      assert.match(noProof.response, /does not prove its organisation/);
      const errors = await server.deps.gateway.errors({ orgId: a.orgId }, 10);
      assert.ok(!errors.some((e) => /belongs to another organisation/.test(e.reason)), "nothing of org B's was refused under org A");
    } finally {
      await put(a, []);
      await put(b, [], TENANT_B);
    }
  });
});
