import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSignatureHeader, sign, verifySignature } from './signature.ts';

const body = Buffer.from('{"id":"evt_1","type":"invoice.paid","data":{"object":{}}}');
const now = 1_700_000_000;

test('a valid signature passes; any one of several v1 values may match; v0 is ignored', () => {
  const good = sign(body, 'whsec_new', now);
  assert.deepEqual(verifySignature(body, `t=${now},v1=${good}`, 'whsec_new', { toleranceS: 300, nowS: now }), { ok: true });
  const roll = `t=${now},v1=${sign(body, 'whsec_old', now)},v1=${good},v0=deadbeef`;
  assert.equal(verifySignature(body, roll, 'whsec_new', { toleranceS: 300, nowS: now }).ok, true);
});

test('refused: wrong secret, tampered body, stale timestamp, missing or malformed header', () => {
  const good = sign(body, 'whsec_a', now);
  const opts = { toleranceS: 300, nowS: now };
  assert.equal(verifySignature(body, `t=${now},v1=${good}`, 'whsec_b', opts).ok, false);
  assert.equal(verifySignature(Buffer.from(body.toString().replace('evt_1', 'evt_2')), `t=${now},v1=${good}`, 'whsec_a', opts).ok, false);
  assert.equal(verifySignature(body, `t=${now},v1=${good}`, 'whsec_a', { toleranceS: 300, nowS: now + 301 }).ok, false);
  assert.equal(verifySignature(body, `t=${now},v1=${good}`, 'whsec_a', { toleranceS: 300, nowS: now + 300 }).ok, true);
  assert.equal(verifySignature(body, undefined, 'whsec_a', opts).ok, false);
  assert.equal(verifySignature(body, 'garbage', 'whsec_a', opts).ok, false);
  assert.equal(verifySignature(body, `t=${now},v1=zz`, 'whsec_a', opts).ok, false);
  assert.equal(parseSignatureHeader(`t=abc,v1=${good}`), undefined);
});

test('refused: a timestamp beyond the tolerance in the future, as in the past', () => {
  const opts = { toleranceS: 300, nowS: now };
  for (const t of [now + 301, now + 365 * 86400, now - 301]) {
    assert.deepEqual(
      verifySignature(body, `t=${t},v1=${sign(body, 'whsec_a', t)}`, 'whsec_a', opts),
      { ok: false, reason: 'timestamp outside the tolerance' },
      String(t - now),
    );
  }
  assert.equal(verifySignature(body, `t=${now + 300},v1=${sign(body, 'whsec_a', now + 300)}`, 'whsec_a', opts).ok, true);
});

test('refused: trailing junk after a v1 value, and other malformed headers', () => {
  const good = sign(body, 'whsec_a', now);
  const opts = { toleranceS: 300, nowS: now };
  for (const header of [
    `t=${now},v1=${good}junk`,
    `t=${now},v1=${good}0`,
    `t=${now},v1=${good.slice(0, 63)}`,
    `t=${now},v1=${good} `,
    `t=${now},v1=${good},`,
    `t=${now},,v1=${good}`,
    `junk,t=${now},v1=${good}`,
    `t=${now},t=${now},v1=${good}`,
    `t=${now}.5,v1=${good}`,
    `t=-${now},v1=${good}`,
    `t= ${now},v1=${good}`,
    `t=${now},v1=`,
    `t=${now},v0`,
    `t=${now},v0=a=b,v1=${good}`,
    `t=${now},${Array.from({ length: 16 }, () => `v1=${good}`).join(',')}`,
  ]) {
    assert.equal(verifySignature(body, header, 'whsec_a', opts).ok, false, header);
  }
  assert.equal(verifySignature(body, `t=${now},v1=${good.toUpperCase()},v0=6ffbb59b`, 'whsec_a', opts).ok, true, 'v0 ignored, hex case-insensitive');
});
