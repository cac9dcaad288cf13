import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPublicAddress, normalizeNetworks, resolveNextHop } from './networks.ts';

test('public addresses: private, loopback, reserved and their IPv6 disguises are not', () => {
  for (const a of ['203.0.114.10', '8.8.8.8', '2a00:1450:4001:80b::200e']) assert.equal(isPublicAddress(a), true, a);
  for (const a of [
    '127.0.0.1',
    '10.1.2.3',
    '192.168.1.1',
    '100.64.0.1',
    '169.254.169.254',
    '203.0.113.5',
    '::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '64:ff9b::a01:203',
    '2002:a01:203::1',
    'nonsense',
  ]) {
    assert.equal(isPublicAddress(a), false, a);
  }
});

test('the next hop: every address it resolves to must be public unless private ones are allowed', async () => {
  const table: Record<string, string[]> = { 'mx.mixed.example': ['203.0.114.10', '10.0.0.1'], 'mx.public.example': ['203.0.114.10'] };
  const lookup = async (name: string) => table[name] ?? [];
  assert.deepEqual(await resolveNextHop('mx.public.example', false, lookup), ['203.0.114.10']);
  await assert.rejects(resolveNextHop('mx.mixed.example', false, lookup), /resolves to a non-public address \(10\.0\.0\.1\)/);
  assert.deepEqual(await resolveNextHop('mx.mixed.example', true, lookup), ['203.0.114.10', '10.0.0.1']);
  await assert.rejects(resolveNextHop('mx.nowhere.example', true, lookup), /does not resolve/);
  assert.deepEqual(await resolveNextHop('127.0.0.1', true, lookup), ['127.0.0.1']);
  await assert.rejects(resolveNextHop('::ffff:7f00:1', false, lookup), /non-public/);
});

test('allowed networks: none wider than an IPv4 /8 or an IPv6 /32, IPv4 written as IPv6 counted as IPv4', () => {
  assert.deepEqual(normalizeNetworks(['10.0.0.0/8', { cidr: '2a01:111:f400::/48', shared: true }, '::ffff:10.0.0.0/104']), [
    { cidr: '10.0.0.0/8', shared: false },
    { cidr: '2a01:111:f400::/48', shared: true },
    { cidr: '::ffff:10.0.0.0/104', shared: false },
  ]);
  for (const wide of ['0.0.0.0/0', '10.0.0.0/7', '::/0', '2001:db8::/31', '::ffff:0:0/96', '::ffff:10.0.0.0/103', '::/80']) {
    assert.throws(() => normalizeNetworks([wide]), /wider than/, wide);
  }
});
