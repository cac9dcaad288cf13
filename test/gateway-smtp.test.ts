// The SMTP gateway end to end (docs/gateway.md): nodemailer's SMTP client → the gateway's
// listener → a real smtp-server standing for each org's next hop. Messages as Outlook, Gmail,
// Apple Mail and Thunderbird write them; who may relay and who may not (org B may never send as
// org A's domain); what passes unchanged, byte for byte.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { simpleParser } from 'mailparser';
import type { TestServer } from './helpers/server.ts';
import { createOrgWithoutTemplates, createUser } from './helpers/fixtures.ts';
import { client, gatewayOrg, rawSession, sendRaw, startGatewaySuite, type GatewayOrg, type Sink } from './helpers/gateway.ts';

const TENANT_A = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const TENANT_B = '0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d';

function fixture(name: string, org: GatewayOrg, to = 'grace@ext.example'): Buffer {
  const text = readFileSync(new URL(`./fixtures/mail/${name}`, import.meta.url), 'utf8')
    .replaceAll('FROM@DOMAIN', org.user.email)
    .replaceAll('@DOMAIN', `@${org.domain}`)
    .replaceAll('TO@EXT', to)
    .replaceAll('@EXT', '@ext.example');
  return Buffer.from(text.replace(/\r?\n/g, '\r\n'), 'utf8');
}

/** The message as the next hop got it, without the two fields the gateway added on top. */
function original(raw: Buffer, stampedAdded = true): Buffer {
  const text = raw.toString('latin1');
  const m = (stampedAdded ? /^Received: [^\r]*\r\n(?:\t[^\r]*\r\n)*(X-Sigsvc-Stamped: [^\r]*\r\n)?/ : /^Received: [^\r]*\r\n(?:\t[^\r]*\r\n)*/).exec(text);
  assert.ok(m, 'the message starts with the Received field the gateway added');
  return raw.subarray(m[0].length);
}

const stampedHeader = (raw: Buffer) => /^X-Sigsvc-Stamped: (.*)$/im.exec(raw.toString('latin1'))?.[1]?.trim();

describe('the SMTP gateway', () => {
  let server: TestServer;
  let sink: Sink;
  let sinkB: Sink;
  let port: number;
  let a: GatewayOrg;
  let b: GatewayOrg;
  let close: () => Promise<void>;
  let sent = 0;
  let sentB = 0;
  before(async () => {
    ({ server, sink, sinkB, port, a, b, close } = await startGatewaySuite({
      a: { domain: 'a-corp.example', m365TenantId: TENANT_A },
      b: { domain: 'b-corp.example', m365TenantId: TENANT_B },
    }));
  });
  after(() => close());

  const asA = () => client(port, { user: a.gatewayId, pass: a.password });
  const asB = () => client(port, { user: b.gatewayId, pass: b.password });

  test('an HTML and text message from a user is stamped in both bodies, relayed, counted and measured', async () => {
    const res = await asA().sendMail({
      from: `Ada <${a.user.email}>`,
      to: 'grace@ext.example',
      subject: 'Hello',
      text: 'Hi Grace,\n\nSee you.',
      html: '<html><body><p>Hi Grace,</p><p>See you.</p></body></html>',
    });
    assert.match(res.response, /^250 /);
    assert.match(res.response, /queued as sink-1/, "the next hop's answer is passed back");
    const got = await sink.next(++sent);
    assert.equal(stampedHeader(got.raw), `${a.orgId}; stamped`);
    assert.deepEqual([got.from, got.to], [a.user.email, ['grace@ext.example']]);
    const parsed = await simpleParser(got.raw);
    assert.match(parsed.html || '', new RegExp(`See you\\.</p><div class="sigsvc-signature sigsvc-${a.user.userId}">.*Ada Lovelace.*</div></body>`, 's'));
    assert.match(parsed.text || '', /See you\.\n\nAda Lovelace/);
    const settings = await server.request('GET', `/v1/orgs/${a.orgId}/integrations/gateway`, { key: a.key });
    assert.equal(settings.body.counts.stamped, 1);
    assert.ok(settings.body.lastMessageAt);
    const metrics = await server.request('GET', '/metrics');
    assert.match(metrics.text, /gateway_messages_total\{outcome="stamped"\} [1-9]/);
  });

  test('original header fields stay as they were, in order; the gateway adds Received and X-Sigsvc-Stamped on top', async () => {
    const raw = fixture('outlook-reply.eml', a);
    assert.equal((await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, raw)).code, 250);
    const got = await sink.next(++sent);
    const head = (m: Buffer) => m.toString('latin1').split('\r\n\r\n')[0];
    assert.equal(head(original(got.raw)), head(raw));
    assert.match(got.raw.toString('latin1'), /^Received: from .*\(\[127\.0\.0\.1\]\)\r\n\tby .* with ESMTP id [0-9a-f-]{36};\r\n/);
  });

  test("replies and forwards: the signature goes before each client's quote, in HTML and in text", async () => {
    const cases = [
      {
        name: 'outlook-reply.eml',
        html: /Thursday works\.<\/div>\s*<div class="sigsvc-signature[^"]*">[\s\S]*<\/div><div id="appendonsend">/,
        text: /Thursday works\.\r?\n\r?\nAda Lovelace[\s\S]*\r?\n\r?\n_{10,}\r?\nFrom: Grace/,
      },
      {
        name: 'gmail-reply.eml',
        html: /café\.<\/div><br><div class="sigsvc-signature[^"]*">[\s\S]*<\/div><div class="gmail_quote/,
        text: /café\.\r?\n\r?\nAda Lovelace[\s\S]*\r?\n\r?\nOn Tue, 24 Nov 2026/,
      },
      {
        name: 'apple-reply.eml',
        html: /lineBreakAtBeginningOfMessage"><div><br><div class="sigsvc-signature[^"]*">[\s\S]*<\/div><div>On 24 Nov 2026, at 09:00/,
        text: /Here they are\.\r?\n\r?\nAda Lovelace[\s\S]*\r?\n\r?\n> On 24 Nov/,
      },
      {
        name: 'thunderbird-forward.eml',
        html: /<div class="moz-forward-container"><br>\s*<div class="sigsvc-signature[^"]*">[\s\S]*<\/div><div class="moz-cite-prefix">/,
        text: /déjà vu\.\r?\n\r?\nAda Lovelace[\s\S]*\r?\n\r?\n-------- Forwarded Message/,
      },
    ];
    for (const c of cases) {
      assert.equal((await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, fixture(c.name, a))).code, 250, c.name);
      const got = await sink.next(++sent);
      assert.equal(stampedHeader(got.raw), `${a.orgId}; stamped`, c.name);
      const parsed = await simpleParser(got.raw);
      assert.match(parsed.html || '', c.html, `${c.name} html`);
      assert.match(parsed.text || '', c.text, `${c.name} text`);
      assert.equal((parsed.html || '').match(/sigsvc-signature/g)?.length, 1, `${c.name}: one signature`);
    }
  });

  test("the org's rules choose the template: a reply (In-Reply-To) gets the rule's reply template, a new message the default", async () => {
    const templates = await server.request('GET', `/v1/orgs/${a.orgId}/templates`, { key: a.key });
    const fallback = templates.body.items.find((t: { isDefault: boolean }) => t.isDefault).templateId as string;
    const reply = await server.request('POST', `/v1/orgs/${a.orgId}/templates`, {
      key: a.key,
      body: { name: 'Short', html: '<p>Short reply from {{ user.name }}</p>', text: 'Short reply from {{ user.name }}' },
    });
    assert.equal(reply.status, 201, reply.text);
    const put = await server.request('PUT', `/v1/orgs/${a.orgId}/rules`, {
      key: a.key,
      body: [{ name: 'Everyone', when: {}, templateId: fallback, replyTemplateId: reply.body.templateId }],
    });
    assert.equal(put.status, 200, put.text);
    try {
      assert.equal((await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, fixture('outlook-reply.eml', a))).code, 250);
      const answered = await simpleParser((await sink.next(++sent)).raw);
      assert.match(answered.html || '', /Short reply from Ada Lovelace/);
      await asA().sendMail({ from: `Ada <${a.user.email}>`, to: 'grace@ext.example', subject: 'New', text: 'Hi.', html: '<p>Hi.</p>' });
      const fresh = await simpleParser((await sink.next(++sent)).raw);
      assert.doesNotMatch(fresh.html || '', /Short reply from/);
      assert.match(fresh.html || '', /Ada Lovelace/);
    } finally {
      await server.request('PUT', `/v1/orgs/${a.orgId}/rules`, { key: a.key, body: [] });
    }
  });

  test('charsets and transfer encodings are kept: base64 UTF-8, quoted-printable ISO-8859-1, 8bit UTF-8', async () => {
    assert.equal((await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, fixture('gmail-reply.eml', a))).code, 250);
    const gmail = (await sink.next(++sent)).raw.toString('latin1');
    assert.equal((gmail.match(/Content-Transfer-Encoding: base64/g) ?? []).length, 2, 'both Gmail parts stay base64');
    assert.equal((gmail.match(/charset="UTF-8"/g) ?? []).length, 2);

    assert.equal((await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'], use8BitMime: true }, fixture('thunderbird-forward.eml', a))).code, 250);
    const got = await sink.next(++sent);
    const tb = got.raw.toString('latin1');
    assert.match(tb, /Content-Type: text\/html; charset=ISO-8859-1\r\nContent-Transfer-Encoding: quoted-printable/);
    assert.match(tb, /d=E9j=E0 vu/, 'the ISO-8859-1 body is still ISO-8859-1, quoted-printable');
    assert.match(tb, /Content-Transfer-Encoding: 8bit\r\n\r\nFor you, d\xc3\xa9j\xc3\xa0 vu\./, 'the 8bit UTF-8 text stays 8bit');
    assert.equal(got.args.BODY, '8BITMIME', 'the next hop was asked for 8BITMIME as the client asked');
    const parsed = await simpleParser(got.raw);
    assert.match(parsed.html || '', /The résumé\./);
  });

  test('multipart/mixed: attachments pass byte for byte', async () => {
    const raw = fixture('mixed-attachment.eml', a);
    assert.equal((await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, raw)).code, 250);
    const got = original((await sink.next(++sent)).raw).toString('latin1');
    const sent_ = raw.toString('latin1');
    const attachments = (m: string) => m.slice(m.indexOf('--mixed-boundary-1\r\nContent-Type: image/png'));
    assert.equal(attachments(got), attachments(sent_), 'everything from the first attachment on is the same bytes');
    assert.notEqual(got, sent_, 'and the text bodies were stamped');
    const parsed = await simpleParser(Buffer.from(got, 'latin1'));
    assert.match(parsed.html || '', /The plan is attached\.<\/p><div class="sigsvc-signature/);
    assert.match(parsed.text || '', /The plan is attached\.\n\nAda Lovelace/);
    assert.deepEqual(
      parsed.attachments.map((a) => [a.filename, a.content.length]),
      [
        ['plan.png', 3008],
        ['notes.txt', 37],
      ],
    );
  });

  test('passed byte for byte: S/MIME signed, a calendar invitation, an already stamped message, a sender who is not a user, internal mail', async () => {
    const cases: { raw: Buffer; to?: string[]; from?: string; header: string | undefined; why: string }[] = [
      { raw: fixture('smime-signed.eml', a), header: `${a.orgId}; passed`, why: 'S/MIME' },
      { raw: fixture('calendar-invite.eml', a), header: `${a.orgId}; passed`, why: 'calendar' },
      {
        raw: Buffer.from(`X-Sigsvc-Stamped: ${a.orgId}; stamped\r\nFrom: ${a.user.email}\r\nTo: grace@ext.example\r\nSubject: again\r\n\r\nLooped.\r\n`),
        header: `${a.orgId}; stamped`,
        why: 'already stamped',
      },
      {
        raw: Buffer.from(`From: printer@${a.domain}\r\nTo: grace@ext.example\r\nSubject: scan\r\n\r\nScanned.\r\n`),
        from: `printer@${a.domain}`,
        header: `${a.orgId}; passed`,
        why: 'not a user',
      },
      {
        raw: Buffer.from(`From: ${a.user.email}\r\nTo: bob@${a.domain}\r\nSubject: lunch\r\nContent-Type: text/html\r\n\r\n<p>Lunch?</p>\r\n`),
        to: [`bob@${a.domain}`],
        header: `${a.orgId}; passed`,
        why: 'internal',
      },
    ];
    for (const c of cases) {
      const res = await sendRaw(asA(), { from: c.from ?? a.user.email, to: c.to ?? ['grace@ext.example'] }, c.raw);
      assert.equal(res.code, 250, `${c.why}: ${res.response}`);
      const got = await sink.next(++sent);
      assert.deepEqual(original(got.raw, c.why !== 'already stamped'), c.raw, `${c.why}: the message is unchanged`);
      assert.equal(stampedHeader(got.raw), c.header, c.why);
      assert.equal((got.raw.toString('latin1').match(/X-Sigsvc-Stamped/g) ?? []).length, 1, `${c.why}: one X-Sigsvc-Stamped`);
    }
  });

  test("a message that already carries the user's signature marker (the add-in's) is not stamped again", async () => {
    const raw = Buffer.from(
      `From: ${a.user.email}\r\nTo: grace@ext.example\r\nSubject: from Outlook\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<p>Hi</p><div class=3D"sigsvc-signature sigsvc-${a.user.userId.slice(0, 20)}=\r\n${a.user.userId.slice(20)}">Ada</div>\r\n`,
    );
    assert.equal((await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, raw)).code, 250);
    const got = await sink.next(++sent);
    assert.deepEqual(original(got.raw), raw);
    assert.equal(stampedHeader(got.raw), `${a.orgId}; passed`);
  });

  test('SMTPUTF8: an internationalised address passes through with SMTPUTF8 at the next hop', async () => {
    const from = `zoë@${a.domain}`;
    const raw = Buffer.from(`From: ${from}\r\nTo: grace@ext.example\r\nSubject: utf8\r\n\r\nHello.\r\n`);
    const res = await sendRaw(asA(), { from, to: ['grace@ext.example'] }, raw);
    assert.equal(res.code, 250, res.response);
    const got = await sink.next(++sent);
    assert.equal(got.from, from);
    assert.equal(got.args.SMTPUTF8, true);
  });

  test("no tenant speaks for another: org B's connection is refused when it sends as org A's domain, and nothing is relayed", async () => {
    const before = sink.messages.length + sinkB.messages.length;
    const envelope = await sendRaw(asB(), { from: a.user.email, to: ['grace@ext.example'] }, fixture('outlook-reply.eml', a));
    assert.equal(envelope.code, 550, envelope.response);
    assert.match(envelope.response, /another organisation/);
    const header = await sendRaw(asB(), { from: b.user.email, to: ['grace@ext.example'] }, fixture('outlook-reply.eml', a));
    assert.equal(header.code, 550, "From: names org A while the envelope is org B's");
    assert.match(header.response, /From domain belongs to another organisation/);
    const unverified = await sendRaw(asB(), { from: 'x@nobody.example', to: ['grace@ext.example'] }, Buffer.from('From: x@nobody.example\r\n\r\nx\r\n'));
    assert.equal(unverified.code, 550);
    assert.equal(sink.messages.length + sinkB.messages.length, before);
    const staffErrors = await server.deps.gateway.errors({ orgId: b.orgId }, 10);
    assert.ok(
      staffErrors.some((e) => e.outcome === 'refused' && e.reason === 'MAIL FROM: 5.7.1 The sender domain belongs to another organisation'),
      'refused at MAIL FROM, before the message was sent',
    );
    assert.ok(staffErrors.some((e) => e.outcome === 'refused' && /From domain belongs to another organisation/.test(e.reason)));
  });

  test('without credentials: no allowed network is 530; a wrong password is 535; never an open relay', async () => {
    const anonymous = await sendRaw(client(port), { from: a.user.email, to: ['grace@ext.example'] }, fixture('outlook-reply.eml', a));
    assert.equal(anonymous.code, 530, anonymous.response);
    const wrong = await sendRaw(
      client(port, { user: a.gatewayId, pass: 'not the password' }),
      { from: a.user.email, to: ['grace@ext.example'] },
      Buffer.from('x'),
    );
    assert.equal(wrong.code, 535, wrong.response);
  });

  test("shared ranges: an address match alone names no org; the Microsoft 365 tenant header does, and cannot name another org's domain", async () => {
    // Both orgs list the loopback range as a provider's shared range.
    for (const org of [a, b]) {
      const res = await server.request('PUT', `/v1/orgs/${org.orgId}/integrations/gateway`, {
        key: org.key,
        body: {
          nextHop: { host: '127.0.0.1', port: (org === a ? sink : sinkB).port, secure: false },
          allowedNetworks: [{ cidr: '127.0.0.0/8', shared: true }],
          stampInternal: false,
          m365TenantId: org === a ? TENANT_A : TENANT_B,
        },
      });
      assert.equal(res.status, 200);
    }
    const plain = Buffer.from(`From: ${a.user.email}\r\nTo: grace@ext.example\r\nSubject: x\r\n\r\nHi.\r\n`);
    const noProof = await sendRaw(client(port), { from: a.user.email, to: ['grace@ext.example'] }, plain);
    assert.equal(noProof.code, 550, noProof.response);
    assert.match(noProof.response, /does not prove its organisation/);

    const withTenant = Buffer.concat([Buffer.from(`X-MS-Exchange-CrossTenant-Id: ${TENANT_A}\r\n`), plain]);
    const ok = await sendRaw(client(port), { from: a.user.email, to: ['grace@ext.example'] }, withTenant);
    assert.equal(ok.code, 250, ok.response);
    assert.equal(stampedHeader((await sink.next(++sent)).raw), `${a.orgId}; stamped`);

    const spoof = Buffer.concat([Buffer.from(`X-MS-Exchange-CrossTenant-Id: ${TENANT_B}\r\n`), plain]);
    const refused = await sendRaw(client(port), { from: a.user.email, to: ['grace@ext.example'] }, spoof);
    assert.equal(refused.code, 550, "org B's tenant cannot send as org A's domain");
    assert.equal(sinkB.messages.length, sentB);

    // An owned range names its org alone.
    const owned = await server.request('PUT', `/v1/orgs/${a.orgId}/integrations/gateway`, {
      key: a.key,
      body: { nextHop: { host: '127.0.0.1', port: sink.port, secure: false }, allowedNetworks: ['127.0.0.1/32'], stampInternal: false, m365TenantId: TENANT_A },
    });
    assert.equal(owned.status, 200);
    await server.request('PUT', `/v1/orgs/${b.orgId}/integrations/gateway`, {
      key: b.key,
      body: { nextHop: { host: '127.0.0.1', port: sinkB.port, secure: false }, allowedNetworks: [], stampInternal: false, m365TenantId: TENANT_B },
    });
    assert.equal((await sendRaw(client(port), { from: a.user.email, to: ['grace@ext.example'] }, plain)).code, 250);
    await sink.next(++sent);
    await server.request('PUT', `/v1/orgs/${a.orgId}/integrations/gateway`, {
      key: a.key,
      body: { nextHop: { host: '127.0.0.1', port: sink.port, secure: false }, allowedNetworks: [], stampInternal: false, m365TenantId: TENANT_A },
    });
  });

  test("the Microsoft integration's tenant names an org that set no m365TenantId of its own", async () => {
    const tenant = '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d';
    const c = await gatewayOrg(server, sinkB, { domain: 'c-corp.example', allowedNetworks: [{ cidr: '127.0.0.0/8', shared: true }] });
    const connected = await server.request('PUT', `/v1/orgs/${c.orgId}/integrations/microsoft`, {
      key: c.key,
      body: { tenantId: tenant, clientId: '0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4e', clientSecret: 'not used here' },
    });
    assert.equal(connected.status, 200, connected.text);
    const raw = Buffer.from(`X-MS-Exchange-CrossTenant-Id: ${tenant}\r\nFrom: ${c.user.email}\r\nTo: grace@ext.example\r\nSubject: x\r\n\r\nHi.\r\n`);
    const res = await sendRaw(client(port), { from: c.user.email, to: ['grace@ext.example'] }, raw);
    assert.equal(res.code, 250, res.response);
    assert.equal(stampedHeader((await sinkB.next(++sentB)).raw), `${c.orgId}; stamped`);
    // Its range removed again: the later tests expect a connection without credentials to name no org.
    const reset = await server.request('PUT', `/v1/orgs/${c.orgId}/integrations/gateway`, {
      key: c.key,
      body: { nextHop: { host: '127.0.0.1', port: sinkB.port, secure: false }, allowedNetworks: [], stampInternal: false },
    });
    assert.equal(reset.status, 200);
  });

  test('stampInternal: internal mail is stamped when the org asks for it', async () => {
    const body = (stampInternal: boolean) => ({
      nextHop: { host: '127.0.0.1', port: sink.port, secure: false },
      allowedNetworks: [],
      stampInternal,
      m365TenantId: TENANT_A,
    });
    assert.equal((await server.request('PUT', `/v1/orgs/${a.orgId}/integrations/gateway`, { key: a.key, body: body(true) })).status, 200);
    const raw = Buffer.from(`From: ${a.user.email}\r\nTo: bob@${a.domain}\r\nSubject: lunch\r\nContent-Type: text/html\r\n\r\n<p>Lunch?</p>\r\n`);
    assert.equal((await sendRaw(asA(), { from: a.user.email, to: [`bob@${a.domain}`] }, raw)).code, 250);
    assert.equal(stampedHeader((await sink.next(++sent)).raw), `${a.orgId}; stamped`);
    assert.equal((await server.request('PUT', `/v1/orgs/${a.orgId}/integrations/gateway`, { key: a.key, body: body(false) })).status, 200);
  });

  test("the next hop's answer is the client's: a 4xx stays a 4xx, a 5xx a 5xx; an unreachable next hop is 451", async () => {
    const plain = Buffer.from(`From: ${a.user.email}\r\nTo: grace@ext.example\r\nSubject: x\r\n\r\nHi.\r\n`);
    sink.refuseWith(451);
    const soft = await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, plain);
    sink.refuseWith(554);
    const hard = await sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, plain);
    sink.refuseWith(undefined);
    assert.equal(soft.code, 451, soft.response);
    assert.match(soft.response, /try later/);
    assert.equal(hard.code, 554, hard.response);
    const settings = await server.request('GET', `/v1/orgs/${a.orgId}/integrations/gateway`, { key: a.key });
    assert.ok(settings.body.counts.failed >= 2);
  });

  test('stamping that fails (fail-open, the default) sends the message on unstamped, counted as failed and listed for staff', async () => {
    const org = await createOrgWithoutTemplates(server);
    await server.deps.gateway.staffVerify({ staffId: 'test', correlationId: 'test' }, org.orgId, 'open.example');
    await createUser(server, org, { email: 'ada@open.example' });
    const put = await server.request('PUT', `/v1/orgs/${org.orgId}/integrations/gateway`, {
      key: org.key,
      body: { nextHop: { host: '127.0.0.1', port: sink.port, secure: false }, allowedNetworks: [], stampInternal: false },
    });
    const raw = Buffer.from('From: ada@open.example\r\nTo: grace@ext.example\r\nSubject: x\r\n\r\nHi.\r\n');
    const res = await sendRaw(
      client(port, { user: put.body.gatewayId, pass: put.body.password }),
      { from: 'ada@open.example', to: ['grace@ext.example'] },
      raw,
    );
    assert.equal(res.code, 250, res.response);
    const got = await sink.next(++sent);
    assert.deepEqual(original(got.raw), raw);
    assert.equal(stampedHeader(got.raw), `${org.orgId}; passed`);
    const settings = await server.request('GET', `/v1/orgs/${org.orgId}/integrations/gateway`, { key: org.key });
    assert.equal(settings.body.counts.failed, 1);
    const errors = await server.deps.gateway.errors({ orgId: org.orgId }, 10);
    assert.match(errors[0]?.reason ?? '', /stamping failed, sent unstamped/);
  });

  test('POST …/gateway/test sends a message from the caller through the gateway', async () => {
    const res = await server.request('POST', `/v1/orgs/${a.orgId}/integrations/gateway/test`, {
      key: a.key,
      body: { to: 'grace@ext.example', from: a.user.email },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.outcome, 'stamped');
    assert.match(res.body.reply, /^250 /);
    const got = await sink.next(++sent);
    assert.match(got.raw.toString('latin1'), /Subject: Signature gateway test/);
    const noFrom = await server.request('POST', `/v1/orgs/${a.orgId}/integrations/gateway/test`, { key: a.key, body: { to: 'grace@ext.example' } });
    assert.equal(noFrom.status, 409);
    const foreign = await server.request('POST', `/v1/orgs/${a.orgId}/integrations/gateway/test`, {
      key: a.key,
      body: { to: 'grace@ext.example', from: b.user.email },
    });
    assert.equal(foreign.status, 409);
  });

  test('a raw dialogue: RCPT before MAIL is refused, and a relay attempt without AUTH gets 530', async () => {
    const s = await rawSession(port);
    assert.match(await s.command('EHLO client.example'), /^250/m);
    assert.match(await s.command('RCPT TO:<grace@ext.example>'), /^503/);
    assert.match(await s.command(`MAIL FROM:<${a.user.email}>`), /^530/);
    assert.match(await s.command('QUIT'), /^221/);
  });
});
