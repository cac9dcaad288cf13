import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { bannerHtml, campaignFor, pickVariant, statusOf, withUtm } from './choose.ts';
import type { RuleFacts } from '../rules/match.ts';

// Fixed "seed": user ids made from their index, so the draw is the same on every run.
const userId = (i: number) => {
  const h = createHash('sha256').update(`seed-42:${i}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
const CAMPAIGN = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

test('a variant is stable per user and campaign', () => {
  const variants = [{ weight: 1 }, { weight: 1 }, { weight: 1 }];
  for (let i = 0; i < 200; i++) assert.equal(pickVariant(CAMPAIGN, userId(i), variants), pickVariant(CAMPAIGN, userId(i), variants));
  // Another campaign draws anew: the same people do not all land on the same index.
  const same = Array.from(
    { length: 300 },
    (_, i) => pickVariant(CAMPAIGN, userId(i), variants) === pickVariant('another-campaign', userId(i), variants),
  ).filter(Boolean).length;
  assert.ok(same > 60 && same < 140, `about a third agree by chance, got ${same}/300`);
});

test('variants are shown in proportion to their weights; weight 0 pauses one; all paused is none', () => {
  const n = 20_000;
  const counts = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    const v = pickVariant(CAMPAIGN, userId(i), [{ weight: 1 }, { weight: 0 }, { weight: 3 }]);
    assert.notEqual(v, null);
    counts[v as number]! += 1;
  }
  assert.equal(counts[1], 0, 'a paused variant is never chosen');
  // Binomial: sd = sqrt(n p (1-p)) ≈ 61 for p = 0.25; 5 sd either side (the draw is fixed, so this never flakes).
  assert.ok(Math.abs(counts[0]! - n / 4) < 310, `weight 1 of 4: ${counts[0]} of ${n}`);
  assert.equal(counts[0]! + counts[2]!, n);
  assert.equal(pickVariant(CAMPAIGN, userId(1), [{ weight: 0 }, { weight: 0 }]), null);
});

test('status follows the times: scheduled before the start, active from it, ended from the end', () => {
  const c = { starts_at: new Date('2026-12-01T09:00:00Z'), ends_at: new Date('2026-12-08T09:00:00Z') };
  assert.equal(statusOf(c, new Date('2026-12-01T08:59:59Z')), 'scheduled');
  assert.equal(statusOf(c, new Date('2026-12-01T09:00:00Z')), 'active');
  assert.equal(statusOf(c, new Date('2026-12-08T08:59:59Z')), 'active');
  assert.equal(statusOf(c, new Date('2026-12-08T09:00:00Z')), 'ended');
  assert.equal(statusOf({ ...c, ends_at: null }, new Date('2030-01-01T00:00:00Z')), 'active');
});

test('the newest started campaign whose audience the person meets wins', () => {
  const sales: RuleFacts = { userId: userId(1), email: 'a@example.com', role: 'member', department: 'Sales', attributes: {}, groups: [] };
  const now = new Date('2026-12-05T00:00:00Z');
  const mk = (name: string, start: string, audience = {}, seq = '1', end: string | null = null) => ({
    name,
    starts_at: new Date(start),
    ends_at: end ? new Date(end) : null,
    audience,
    seq,
    variants: [{ weight: 1 }],
  });
  const older = mk('older', '2026-12-01T00:00:00Z', {}, '1');
  const newer = mk('newer', '2026-12-03T00:00:00Z', { departments: ['Sales'] }, '2');
  const engineering = mk('eng', '2026-12-04T00:00:00Z', { departments: ['Engineering'] }, '3');
  const future = mk('future', '2026-12-06T00:00:00Z', {}, '4');
  const ended = mk('ended', '2026-12-04T12:00:00Z', {}, '5', '2026-12-04T13:00:00Z');
  assert.equal(campaignFor([older, newer, engineering, future, ended], sales, now)?.name, 'newer');
  assert.equal(campaignFor([older, engineering, future], sales, now)?.name, 'older');
  assert.equal(campaignFor([engineering, future], sales, now), undefined);
  const paused = { ...mk('paused', '2026-12-04T00:00:00Z', {}, '6'), variants: [{ weight: 0 }, { weight: 0 }] };
  assert.equal(campaignFor([older, paused], sales, now)?.name, 'older', 'every variant paused: it hides no older campaign');
});

test('UTM parameters join the link; the banner is a sized, escaped, linked image', () => {
  assert.equal(
    withUtm('https://shop.example/sale?x=1', { source: 'signature', medium: 'email', campaign: 'winter' }),
    'https://shop.example/sale?x=1&utm_source=signature&utm_medium=email&utm_campaign=winter',
  );
  // The link's own query as written (a signed or `;`-separated one breaks when written again);
  // the campaign's three parameters replace any the link has; the fragment stays last.
  assert.equal(
    withUtm('https://shop.example/p?a=1&b=x%20y&flag;c=2&utm_source=partner#sect', { source: 'sig', medium: 'email', campaign: 'winter sale' }),
    'https://shop.example/p?a=1&b=x%20y&flag;c=2&utm_source=sig&utm_medium=email&utm_campaign=winter%20sale#sect',
  );
  assert.equal(withUtm('https://shop.example', { source: 's', medium: 'm', campaign: 'c' }), 'https://shop.example?utm_source=s&utm_medium=m&utm_campaign=c');
  const html = bannerHtml({
    imageUrl: 'https://sig.example/v1/images/i1',
    href: 'https://shop.example/?a=1&b="2"',
    alt: 'Winter <sale>',
    width: 1200,
    height: 300,
  });
  assert.match(html, /width="600" height="150"/);
  assert.match(html, /href="https:\/\/shop\.example\/\?a=1&amp;b=&quot;2&quot;"/);
  assert.match(html, /alt="Winter &lt;sale&gt;"/);
});
