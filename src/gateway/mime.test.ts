import { test } from 'node:test';
import assert from 'node:assert/strict';
import libqp from 'libqp';
import { spliceQp } from './mime.ts';

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
