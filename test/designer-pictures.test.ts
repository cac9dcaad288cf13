// The designer's public pictures over HTTP: the social icons compiled signatures show and the
// starters' thumbnails, as a mail client and the gallery fetch them (no credentials).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { STARTER_DESIGNS } from '../src/designer/starters.ts';

describe('designer pictures', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { headers });

  test('a social icon: a PNG anyone may fetch, cached a day, revalidated by ETag', async () => {
    const res = await get('/v1/social/linkedin.png');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.equal(res.headers.get('cache-control'), 'public, max-age=86400');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
    assert.equal(bytes.readUInt32BE(16), 40, 'drawn at twice the 20 px it is shown at');
    const etag = res.headers.get('etag')!;
    assert.ok(etag);
    const again = await get('/v1/social/linkedin.png', { 'if-none-match': etag });
    assert.equal(again.status, 304);
  });

  test('every starter has a thumbnail; an unknown icon or starter is a 404 in the envelope', async () => {
    for (const s of STARTER_DESIGNS) {
      const res = await get(`/v1/starters/${s.starterId}/thumbnail.png`);
      assert.equal(res.status, 200, s.starterId);
      assert.equal(res.headers.get('content-type'), 'image/png');
      await res.arrayBuffer();
    }
    for (const path of ['/v1/social/myspace.png', '/v1/social/linkedin.gif', '/v1/starters/nope/thumbnail.png']) {
      const res = await get(path);
      assert.equal(res.status, 404, path);
      const body = (await res.json()) as { error: { code: string; correlationId: string } };
      assert.equal(body.error.code, 'NOT_FOUND');
      assert.ok(body.error.correlationId);
    }
  });
});
