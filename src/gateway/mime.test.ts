import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import libqp from 'libqp';
import { Joiner, SPLIT_OPTIONS, Splitter, sendersOf, stamper } from './mime.ts';
import { spliceQp } from './body.ts';
import { noFacts } from './facts.ts';

test('quoted-printable splice: at every offset the body decodes to the insertion, lines of at most 76, the other lines byte for byte', () => {
  const bodies = [
    'abc\r\ndef\r\n',
    `<p>${'long line with café and = signs '.repeat(8)}</p>\r\n<p>short</p>\r\n</body></html>`,
    '-- dashes\r\ntrailing space   \r\n\r\nend',
  ];
  const insert = Buffer.from('<div>Ada — SIG</div>');
  for (const body of bodies) {
    const decoded = Buffer.from(body);
    const encoded = Buffer.from(libqp.wrap(libqp.encode(decoded), 76), 'latin1');
    assert.ok(libqp.decode(encoded).equals(decoded));
    for (let at = 0; at <= decoded.length; at++) {
      const spliced = spliceQp(encoded, decoded, at, insert);
      if (decoded[at - 1] === 0x0d && decoded[at] === 0x0a) {
        assert.equal(spliced, undefined, 'not within a line break');
        continue;
      }
      assert.ok(spliced, `offset ${at}`);
      assert.equal(libqp.decode(spliced).toString(), Buffer.concat([decoded.subarray(0, at), insert, decoded.subarray(at)]).toString(), `offset ${at}`);
      for (const line of spliced.toString('latin1').split('\r\n')) assert.ok(line.length <= 76, line);
      const kept = encoded.toString('latin1').split('\r\n');
      const got = spliced.toString('latin1').split('\r\n');
      assert.ok(kept.filter((l) => got.includes(l)).length >= kept.length - 1, 'one encoded line changed at most');
    }
  }
});

test('From: the sender is the one mailbox of the one From field, read as an address list; display names, comments and encoded words name no one', () => {
  const one = (...fields: string[]) => sendersOf(fields);
  assert.deepEqual(one('Ada <Ada@A-Corp.example>'), { from: 'ada@a-corp.example', addresses: ['ada@a-corp.example'] });
  assert.deepEqual(one('"<ada@b.example>" <ceo@a.example>'), { from: 'ceo@a.example', addresses: ['ceo@a.example'] });
  assert.deepEqual(one('"ceo@b.example" ceo@a.example'), { from: 'ceo@a.example', addresses: ['ceo@a.example'] });
  assert.deepEqual(one('(ada@b.example) ceo@a.example'), { from: 'ceo@a.example', addresses: ['ceo@a.example'] });
  assert.deepEqual(one('=?utf-8?q?=3Cada=40b.example=3E?= <ceo@a.example>'), { from: 'ceo@a.example', addresses: ['ceo@a.example'] });
  assert.deepEqual(one(' ceo@a.example.'), { from: 'ceo@a.example', addresses: ['ceo@a.example'] }, 'the trailing dot of a domain');
  assert.deepEqual(one('ada@b.example', 'ceo@a.example'), { from: undefined, addresses: ['ada@b.example', 'ceo@a.example'] }, 'two From fields');
  assert.deepEqual(one('ada@b.example, ceo@a.example'), { from: undefined, addresses: ['ada@b.example', 'ceo@a.example'] }, 'a list');
  assert.deepEqual(one('team: ada@b.example;'), { from: 'ada@b.example', addresses: ['ada@b.example'] }, 'a group of one');
  assert.deepEqual(one('undisclosed:;'), { from: undefined, addresses: [] });
  assert.deepEqual(one('Ada Lovelace'), { from: undefined, addresses: [] });
  assert.deepEqual(one(), { from: undefined, addresses: [] });
});

/** The message through Splitter, stamper and Joiner, stamping for user `u1`: the result, the facts and the bytes out. */
async function stamp(message: string) {
  const facts = noFacts();
  const transform = stamper(facts, { decide: async (f) => (f.from ? 'u1' : undefined), signature: async () => ({ html: '<p>SIG</p>', text: 'SIG' }) });
  const out: Buffer[] = [];
  const joiner = new Joiner();
  joiner.on('data', (c: Buffer) => out.push(c));
  await pipeline(Readable.from([Buffer.from(message.replace(/\r?\n/g, '\r\n'), 'latin1')]), new Splitter(SPLIT_OPTIONS), transform, joiner);
  return { result: transform.result(), facts, out: Buffer.concat(out).toString('latin1') };
}

test('stamper: a body it cannot read back byte for byte, or must not change, passes the message with the reason', async () => {
  const head = (type: string) => `From: ada@a.example\nMIME-Version: 1.0\nContent-Type: ${type}\n\n`;
  const cases: [string, string][] = [
    [`${head('text/plain; charset=ISO-2022-JP')}\x1b$B$3$s\x1b(B\n`, 'a text/plain body in iso-2022-jp, a charset the gateway cannot read'],
    [`${head('text/plain')}Caf\xe9\n`, 'a text/plain body whose bytes are not us-ascii'],
    [`${head('text/html; charset=utf-8')}<p>Caf\xe9</p>\n`, 'a text/html body whose bytes are not utf-8'],
    [`${head('text/plain')}-----BEGIN PGP MESSAGE-----\n\nhQEMA\n-----END PGP MESSAGE-----\n`, 'inline PGP'],
    [`${head('image/png')}iVBORw0KGgo=\n`, 'no text body to stamp'],
  ];
  for (const [message, reason] of cases) assert.deepEqual((await stamp(message)).result, { state: 'passed', reason }, reason);
  assert.equal((await stamp(cases[3]![0])).facts.untouchable, 'signed-or-encrypted', 'inline PGP counts as signed or encrypted');
  const ok = await stamp(`${head('text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit')}Caf\xc3\xa9\n`);
  assert.deepEqual(ok.result, { state: 'stamped' });
  assert.match(ok.out, /Caf\xc3\xa9\r\n\r\nSIG\r\n/);
  const noType = await stamp('From: ada@a.example\n\nHello.\n');
  assert.deepEqual(noType.result, { state: 'stamped' }, 'without a Content-Type the body is text/plain');
});

test('stamper: only the main body: the alternatives of the first part, not attachments nor later text parts', async () => {
  const part = (headers: string, body: string) => `--B\n${headers}\n\n${body}\n`;
  const message = [
    'From: ada@a.example\nContent-Type: multipart/mixed; boundary="B"\n\n',
    part(
      'Content-Type: multipart/alternative; boundary="C"',
      '--C\nContent-Type: text/plain\n\nplain body\n--C\nContent-Type: text/html\n\n<p>html body</p>\n--C--',
    ),
    part('Content-Type: text/plain; name="a.txt"', 'named'),
    part('Content-Type: text/html\nContent-Disposition: inline; filename="b.html"', '<p>inline file</p>'),
    part('Content-Type: text/plain', 'second text part'),
    '--B--\n',
  ].join('');
  const { result, out } = await stamp(message);
  assert.deepEqual(result, { state: 'stamped' });
  assert.match(out, /plain body\n\nSIG\n/);
  assert.match(out, /<p>html body<\/p>\r?\n?<p>SIG<\/p>/);
  assert.equal(out.match(/SIG/g)?.length, 2);
  const related = await stamp(
    'From: ada@a.example\nContent-Type: multipart/related; boundary="R"\n\n--R\nContent-Type: text/html\n\n<p>body</p>\n--R\nContent-Type: text/html\n\n<p>not the body</p>\n--R--\n',
  );
  assert.equal(related.out.match(/SIG/g)?.length, 1);
  assert.match(related.out, /<p>body<\/p>\r?\n?<p>SIG<\/p>/);
});
