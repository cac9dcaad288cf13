import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCrossSitePost } from './cross-site.ts';

const own = 'https://auth.example.com';

test('a post from this origin, or one that names none, is allowed', () => {
  assert.equal(isCrossSitePost('POST', { origin: own, 'sec-fetch-site': 'same-origin' }, own), false);
  assert.equal(isCrossSitePost('POST', {}, own), false, 'curl sends neither header');
  assert.equal(isCrossSitePost('POST', { 'sec-fetch-site': 'none' }, own), false, 'typed in the address bar');
  assert.equal(isCrossSitePost('POST', { 'sec-fetch-site': 'same-site' }, own), false, 'no Origin to compare: the site is ours');
});

test('another origin, an opaque one, or Sec-Fetch-Site cross-site is refused', () => {
  assert.equal(isCrossSitePost('POST', { origin: 'https://evil.example' }, own), true);
  assert.equal(isCrossSitePost('POST', { origin: 'https://sub.auth.example.com' }, own), true, 'a sibling origin is another origin');
  assert.equal(isCrossSitePost('POST', { origin: 'http://auth.example.com' }, own), true, 'another scheme');
  assert.equal(isCrossSitePost('POST', { origin: 'null' }, own), true);
  assert.equal(isCrossSitePost('POST', { 'sec-fetch-site': 'cross-site' }, own), true);
  assert.equal(isCrossSitePost('POST', { origin: own, 'sec-fetch-site': 'cross-site' }, own), true);
});

test('only posts: a cross-site GET of a page is a link followed', () => {
  assert.equal(isCrossSitePost('GET', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, own), false);
});
