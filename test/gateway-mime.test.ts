// What the gateway reads in a message and what it leaves alone (docs/gateway.md, "What it does to a
// message"), end to end: nodemailer's SMTP client → the gateway → a real smtp-server as each org's
// next hop. The From field another org's sender cannot borrow; the bodies it must not touch
// (8-bit bytes its charset does not declare, charsets it cannot read, inline PGP, text
// attachments); a reply that quotes the user's earlier stamped message.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import type { TestServer } from './helpers/server.ts';
import { client, sendRaw, startGatewaySuite, type GatewayOrg, type Sink } from './helpers/gateway.ts';

/** The message as the next hop got it, without the Received and X-Sigsvc-Stamped fields the gateway added on top. */
function original(raw: Buffer): Buffer {
  const m = /^Received: [^\r]*\r\n(?:\t[^\r]*\r\n)*X-Sigsvc-Stamped: [^\r]*\r\n/.exec(raw.toString('latin1'));
  assert.ok(m, 'the message starts with the fields the gateway added');
  return raw.subarray(m[0].length);
}

const stampedHeader = (raw: Buffer) => /^X-Sigsvc-Stamped: (.*)$/im.exec(raw.toString('latin1'))?.[1]?.trim();

/** A message from lines (CRLF line ends), its bytes as latin1 so that a test can write any byte. */
const message = (...lines: string[]) => Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1');

describe('the gateway reads From and the bodies', () => {
  let server: TestServer;
  let sink: Sink;
  let sinkB: Sink;
  let port: number;
  let a: GatewayOrg;
  let b: GatewayOrg;
  let close: () => Promise<void>;
  let sent = 0;
  before(async () => {
    ({ server, sink, sinkB, port, a, b, close } = await startGatewaySuite({ a: { domain: 'a-corp.example' }, b: { domain: 'b-corp.example' } }));
  });
  after(() => close());

  const asA = () => client(port, { user: a.gatewayId, pass: a.password });
  const asB = () => client(port, { user: b.gatewayId, pass: b.password });
  const fromA = (raw: Buffer) => sendRaw(asA(), { from: a.user.email, to: ['grace@ext.example'] }, raw);

  /** Sends as org A's user, expects it relayed as it came (X-Sigsvc-Stamped passed). */
  async function assertPassedUnchanged(raw: Buffer, why: string) {
    const res = await fromA(raw);
    assert.equal(res.code, 250, `${why}: ${res.response}`);
    const got = await sink.next(++sent);
    assert.equal(stampedHeader(got.raw), `${a.orgId}; passed`, why);
    assert.ok(original(got.raw).equals(raw), `${why}: the message is unchanged, byte for byte`);
  }

  test("From is read as an address list: a display name holding another org's address does not make the sender that org's user", async () => {
    // Org B's connection, org B's envelope sender; the mailbox the recipient sees is org A's CEO.
    for (const from of [`"<${b.user.email}>" <ceo@${a.domain}>`, `"ceo@${b.domain}" ceo@${a.domain}`, `${b.user.email} <ceo@${a.domain}>`]) {
      const before = sink.messages.length + sinkB.messages.length;
      const res = await sendRaw(
        asB(),
        { from: b.user.email, to: ['grace@ext.example'] },
        message(`From: ${from}`, 'To: grace@ext.example', 'Subject: wire money', '', 'Pay now.'),
      );
      assert.equal(res.code, 550, `${from}: ${res.response}`);
      assert.match(res.response, /From domain belongs to another organisation/, from);
      assert.equal(sink.messages.length + sinkB.messages.length, before, `${from}: nothing relayed`);
    }
  });

  test('a message with two From fields, or a From with several mailboxes or none, is no user’s: never stamped', async () => {
    const cases = [
      message(`From: ${a.user.email}`, `From: ceo@${a.domain}`, 'To: grace@ext.example', 'Subject: two', '', 'Pay now.'),
      message(`From: ${a.user.email}, ceo@${a.domain}`, `Sender: ${a.user.email}`, 'To: grace@ext.example', 'Subject: several', '', 'Pay now.'),
      message('From: undisclosed:;', 'To: grace@ext.example', 'Subject: none', '', 'Pay now.'),
    ];
    for (const raw of cases) await assertPassedUnchanged(raw, raw.toString('latin1').split('\r\n\r\n')[0]!);
  });

  test("two From fields, one of them another org's: refused like a single one", async () => {
    const res = await sendRaw(
      asB(),
      { from: b.user.email, to: ['grace@ext.example'] },
      message(`From: ${b.user.email}`, `From: ceo@${a.domain}`, 'To: grace@ext.example', 'Subject: two', '', 'Pay now.'),
    );
    assert.equal(res.code, 550, res.response);
  });

  test('a body whose bytes its charset does not read back the same passes unchanged: 8-bit text without a charset, invalid UTF-8, ISO-2022-JP', async () => {
    const head = (type: string, cte = '8bit') => [
      `From: Ada <${a.user.email}>`,
      'To: grace@ext.example',
      'Subject: bytes',
      'MIME-Version: 1.0',
      `Content-Type: ${type}`,
      `Content-Transfer-Encoding: ${cte}`,
      '',
    ];
    await assertPassedUnchanged(message(...head('text/plain'), 'Caf\xe9 cr\xe8me, na\xefve.'), 'no charset, 8-bit bytes');
    await assertPassedUnchanged(message(...head('text/plain; charset=us-ascii'), 'Caf\xe9'), 'us-ascii, 8-bit bytes');
    await assertPassedUnchanged(message(...head('text/plain; charset=utf-8'), 'Caf\xe9 cr\xe8me'), 'invalid UTF-8');
    await assertPassedUnchanged(message(...head('text/html; charset=utf-8'), '<p>Caf\xe9</p>'), 'invalid UTF-8 HTML');
    await assertPassedUnchanged(message(...head('text/plain; charset=ISO-2022-JP', '7bit'), '\x1b$B$3$s$K$A$O\x1b(B'), 'ISO-2022-JP');
    const alternative = message(
      `From: Ada <${a.user.email}>`,
      'To: grace@ext.example',
      'Subject: one part unreadable',
      'MIME-Version: 1.0',
      'Content-Type: multipart/alternative; boundary="AA"',
      '',
      '--AA',
      'Content-Type: text/plain; charset=ISO-2022-JP',
      '',
      '\x1b$B$3$s$K$A$O\x1b(B',
      '--AA',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>Hello</p>',
      '--AA--',
    );
    await assertPassedUnchanged(alternative, 'a readable HTML part next to an unreadable text part');
    // Control: valid UTF-8 is stamped.
    assert.equal((await fromA(message(...head('text/plain; charset=utf-8'), 'Caf\xc3\xa9'))).code, 250);
    const got = await sink.next(++sent);
    assert.equal(stampedHeader(got.raw), `${a.orgId}; stamped`);
    assert.match((await simpleParser(got.raw)).text ?? '', /Café\n\nAda Lovelace/);
  });

  test('inline PGP (signed or encrypted) in a text body passes unchanged', async () => {
    const head = [
      `From: Ada <${a.user.email}>`,
      'To: grace@ext.example',
      'Subject: pgp',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=us-ascii',
      '',
    ];
    await assertPassedUnchanged(
      message(
        ...head,
        '-----BEGIN PGP SIGNED MESSAGE-----',
        'Hash: SHA256',
        '',
        'Pay invoice 42.',
        '-----BEGIN PGP SIGNATURE-----',
        '',
        'iHUEARYIAB0WIQ',
        '=abcd',
        '-----END PGP SIGNATURE-----',
      ),
      'inline signed',
    );
    await assertPassedUnchanged(
      message(...head, 'Here it is:', '', '-----BEGIN PGP MESSAGE-----', '', 'hQEMA1234567890', '=wxyz', '-----END PGP MESSAGE-----'),
      'inline encrypted',
    );
  });

  test('only the main body is stamped: text attachments (a file name, inline or not) and later text parts pass byte for byte', async () => {
    const parts = [
      ['Content-Type: text/plain; charset=us-ascii', '', 'See the log attached.'],
      ['Content-Type: text/plain; charset=us-ascii; name="server.log"', '', 'line1 of the log', 'line2 of the log'],
      ['Content-Type: text/html; charset=us-ascii', 'Content-Disposition: inline; filename="page.html"', '', '<html><body><p>saved page</p></body></html>'],
      ['Content-Type: text/plain; charset=us-ascii', 'Content-Disposition: inline; filename="notes.txt"', '', 'notes file'],
      ['Content-Type: text/plain; charset=us-ascii', '', 'a second text part'],
    ];
    const raw = message(
      `From: Ada <${a.user.email}>`,
      'To: grace@ext.example',
      'Subject: log file',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="BB"',
      '',
      ...parts.flatMap((p) => ['--BB', ...p]),
      '--BB--',
    );
    assert.equal((await fromA(raw)).code, 250);
    const got = await sink.next(++sent);
    assert.equal(stampedHeader(got.raw), `${a.orgId}; stamped`);
    const out = original(got.raw).toString('latin1');
    assert.equal((out.match(/Ada Lovelace/g) ?? []).length, 1, 'one signature');
    assert.match(out, /See the log attached\.\r\n\r\nAda Lovelace/);
    const rest = (m: string) => m.slice(m.indexOf('--BB\r\nContent-Type: text/plain; charset=us-ascii; name='));
    assert.equal(rest(out), rest(raw.toString('latin1')), 'every part after the body is the same bytes');
  });

  test("a reply that quotes the user's earlier stamped message is stamped: the quote's marker does not count", async () => {
    const html = (quoted: string) =>
      `<html><body><div dir="ltr">Second message.</div><div class="gmail_quote"><div class="gmail_attr">On Thu, Ada wrote:</div><blockquote class="gmail_quote"><p>First.</p>${quoted}</blockquote></div></body></html>`;
    const earlier = `<div class="sigsvc-signature sigsvc-${a.user.userId}"><p>Ada Lovelace</p></div>`;
    const reply = (body: string) =>
      message(
        `From: Ada <${a.user.email}>`,
        'To: grace@ext.example',
        'Subject: Re: first',
        'In-Reply-To: <first@a-corp.example>',
        'MIME-Version: 1.0',
        'Content-Type: text/html; charset=utf-8',
        '',
        body,
      );
    assert.equal((await fromA(reply(html(earlier)))).code, 250);
    const got = await sink.next(++sent);
    assert.equal(stampedHeader(got.raw), `${a.orgId}; stamped`);
    const out = (await simpleParser(got.raw)).html || '';
    assert.match(out, new RegExp(`Second message\\.</div><div class="sigsvc-signature sigsvc-${a.user.userId}">`));
    assert.equal(out.match(/sigsvc-signature/g)?.length, 2, 'the new signature and the quoted one');
    // Control: the marker above the quote (the add-in inserted it) still passes the message.
    await assertPassedUnchanged(reply(html('').replace('Second message.', `Second message.${earlier}`)), 'marker above the quote');
  });
});
