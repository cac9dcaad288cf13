import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clickKey, signClick, verifyClick } from './token.ts';
import { plainAddress, scannerOf } from './scanners.ts';
import { RecentClicks } from './timing.ts';

const key = clickKey('test secrets key');
const target = { orgId: 'o1', campaignId: 'c1', variant: 1, userId: 'u1', destination: 'https://shop.example/?utm_source=sig' };

test('tokens are deterministic, verify, and refuse tampering and other keys', () => {
  const token = signClick(key, target);
  assert.equal(signClick(key, target), token, 'same fields, same token');
  assert.notEqual(signClick(key, { ...target, userId: 'u2' }), token);
  assert.deepEqual(verifyClick(key, token), target);
  const [body, mac] = token.split('.') as [string, string];
  const forged = Buffer.from(JSON.stringify(['o1', 'c1', 1, 'u1', 'https://evil.example/']), 'utf8').toString('base64url');
  assert.equal(verifyClick(key, `${forged}.${mac}`), null, 'another destination under the old signature');
  assert.equal(verifyClick(key, `${body}.${mac.slice(0, -2)}AA`), null);
  assert.equal(verifyClick(clickKey('another key'), token), null);
  assert.equal(verifyClick(key, 'nonsense'), null);
});

test('scanners by address range (IPv4, IPv6, mapped IPv4) and by user agent; a browser elsewhere is none', () => {
  const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
  assert.equal(scannerOf('40.92.4.10', chrome), 'Microsoft Defender for Office 365');
  assert.equal(scannerOf(plainAddress('::ffff:104.47.1.2'), chrome), 'Microsoft Defender for Office 365');
  assert.equal(scannerOf('2a01:111:f400:7e00::1', chrome), 'Microsoft Defender for Office 365');
  assert.equal(scannerOf('209.222.82.17', chrome), 'Barracuda Email Gateway Defense');
  assert.equal(scannerOf('198.51.100.7', 'Microsoft Office/16.0 (ms-office; MSOffice 16)'), 'Microsoft Defender for Office 365');
  assert.equal(scannerOf('198.51.100.7', 'Mozilla/5.0 HeadlessChrome/120.0'), 'a detonation sandbox');
  assert.equal(scannerOf('198.51.100.7', 'Mimecast-URL-Protect/1.0'), 'Mimecast');
  assert.equal(scannerOf('198.51.100.7', 'python-requests/2.31'), 'an HTTP library');
  assert.equal(scannerOf('198.51.100.7', undefined), 'no user agent');
  assert.equal(scannerOf('198.51.100.7', chrome), null);
  assert.equal(scannerOf('40.94.0.1', chrome), null, 'just outside 40.92.0.0/15');
});

test('timing: a second distinct link of one signature from one address within 10 s is marked, and later ones', () => {
  const recent = new RecentClicks();
  const t0 = 1_000_000;
  assert.equal(recent.judge('a', 'o', 'u', 'https://x/1', t0), false, 'the first');
  assert.equal(recent.judge('a', 'o', 'u', 'https://x/1', t0 + 1000), false, 'the same link again');
  assert.equal(recent.judge('a', 'o', 'u', 'https://x/2', t0 + 2000), true, 'the second distinct link');
  assert.equal(recent.judge('a', 'o', 'u', 'https://x/3', t0 + 3000), true, 'and the third');
  assert.equal(recent.judge('b', 'o', 'u', 'https://x/2', t0 + 3000), false, 'another address');
  assert.equal(recent.judge('a', 'o', 'other-user', 'https://x/2', t0 + 3000), false, 'another signature');
  assert.equal(recent.judge('a', 'o', 'u', 'https://x/4', t0 + 3000 + 10_000), false, 'after the window');
});
