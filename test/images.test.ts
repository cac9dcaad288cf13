// Images (docs/api.md, "Images"): upload (admin), list, soft delete, and the public route mail clients fetch,
// with long-lived caching and an ETag; refusals (wrong type, too big, too large a side, a header
// that lies about the bytes) are 4xx in the envelope and store nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser, type TestOrg } from './helpers/fixtures.ts';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gif, gifWithFrame, jpeg, png } from './helpers/images.ts';
import { ON_POSTGRES } from './helpers/pg.ts';
import { imagesRepo } from '../src/store/repositories/images.ts';

describe('images', () => {
  let server: TestServer;
  let org: TestOrg;
  let other: TestOrg;
  before(async () => {
    server = await startServer();
    org = await createOrg(server);
    other = await createOrg(server);
  });
  after(() => server.close());

  const upload = async (o: TestOrg, body: Uint8Array | string, contentType: string) => {
    const res = await fetch(`${server.url}/v1/orgs/${o.orgId}/images`, {
      method: 'POST',
      headers: { 'x-api-key': o.key, 'content-type': contentType },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  const list = async (o: TestOrg, query = '') => (await server.request('GET', `/v1/orgs/${o.orgId}/images${query}`, { key: o.key })).body;
  const auditActions = async (o: TestOrg) =>
    (await server.request('GET', `/v1/orgs/${o.orgId}/audit?limit=200`, { key: o.key })).body.items.map((e: { action: string }) => e.action);

  test('PNG, JPEG and GIF: 201 with the size read from the bytes, served to anyone as uploaded', async () => {
    const cases = [
      { bytes: png(120, 45), type: 'image/png', width: 120, height: 45 },
      { bytes: jpeg(640, 480), type: 'image/jpeg', width: 640, height: 480 },
      { bytes: gif(16, 9), type: 'image/gif', width: 16, height: 9 },
      { bytes: png(2000, 1), type: 'image/png', width: 2000, height: 1 },
    ];
    for (const c of cases) {
      const res = await upload(org, c.bytes, `${c.type}; charset=binary`);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body).sort(), ['bytes', 'contentType', 'createdAt', 'height', 'imageId', 'url', 'width']);
      assert.equal(res.body.contentType, c.type);
      assert.equal(res.body.width, c.width);
      assert.equal(res.body.height, c.height);
      assert.equal(res.body.bytes, c.bytes.length);
      assert.equal(res.body.url, `${server.url}/v1/images/${res.body.imageId}`);

      const served = await fetch(res.body.url); // no credentials: mail clients fetch it
      assert.equal(served.status, 200);
      assert.equal(served.headers.get('content-type'), c.type);
      assert.match(served.headers.get('cache-control') ?? '', /public, max-age=31536000, immutable/);
      assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
      assert.ok(Buffer.from(await served.arrayBuffer()).equals(c.bytes), 'the bytes uploaded');
      const etag = served.headers.get('etag');
      assert.match(etag ?? '', /^"[0-9a-f]{64}"$/);

      const again = await fetch(res.body.url, { headers: { 'if-none-match': etag! } });
      assert.equal(again.status, 304);
      assert.equal((await again.arrayBuffer()).byteLength, 0);
      assert.equal(again.headers.get('etag'), etag);
      const listed = await fetch(res.body.url, { headers: { 'if-none-match': `"other", W/${etag}` } });
      assert.equal(listed.status, 304, 'a weak or listed match is a match');
      const stale = await fetch(res.body.url, { headers: { 'if-none-match': '"0000"' } });
      assert.equal(stale.status, 200);
      await stale.arrayBuffer();
    }
    assert.ok((await auditActions(org)).includes('image.create'));
  });

  test("list: paginated, oldest first, only the org's own; delete is soft: the URL stops answering", async () => {
    const o = await createOrg(server);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await upload(o, png(10 + i, 10), 'image/png')).body.imageId);
    const first = await list(o, '?limit=2');
    assert.deepEqual(
      first.items.map((i: { imageId: string }) => i.imageId),
      ids.slice(0, 2),
    );
    assert.ok(first.nextCursor);
    const second = await list(o, `?limit=2&cursor=${first.nextCursor}`);
    assert.deepEqual(
      second.items.map((i: { imageId: string }) => i.imageId),
      ids.slice(2),
    );
    assert.equal(second.nextCursor, null);
    assert.equal(
      (await list(other)).items.some((i: { imageId: string }) => ids.includes(i.imageId)),
      false,
    );

    // Another org cannot delete it through its own path.
    const foreign = await server.request('DELETE', `/v1/orgs/${other.orgId}/images/${ids[0]}`, { key: other.key });
    assert.equal(foreign.status, 404);
    assert.equal((await fetch(`${server.url}/v1/images/${ids[0]}`)).status, 200);
    assert.ok(server.deps.caches.images.has(ids[0]!), 'served from the cache from now on');

    const del = await server.request('DELETE', `/v1/orgs/${o.orgId}/images/${ids[0]}`, { key: o.key });
    assert.equal(del.status, 204);
    assert.equal(server.deps.caches.images.has(ids[0]!), false, 'the deletion forgot the cached bytes');
    const gone = await server.request('GET', `/v1/images/${ids[0]}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, 'NOT_FOUND');
    assert.deepEqual(
      (await list(o)).items.map((i: { imageId: string }) => i.imageId),
      ids.slice(1),
    );
    assert.equal((await server.request('DELETE', `/v1/orgs/${o.orgId}/images/${ids[0]}`, { key: o.key })).status, 404);
    assert.equal((await server.request('GET', `/v1/images/${randomUUID()}`)).status, 404);
    assert.equal((await server.request('GET', '/v1/images/not-a-uuid')).status, 400);
    const actions = await auditActions(o);
    assert.equal(actions.filter((a: string) => a === 'image.delete').length, 1);
  });

  test('an image in use (the logo, a photo, a template, a campaign) is not deleted: 409 naming each place; once none uses it, 204', async () => {
    const o = await createOrg(server);
    const req = (method: string, path: string, body?: unknown) =>
      server.request(method, `/v1/orgs/${o.orgId}${path}`, { key: o.key, ...(body !== undefined ? { body } : {}) });
    const imageId = (await upload(o, png(240, 80), 'image/png')).body.imageId as string;
    const org0 = (await req('GET', '')).body;
    assert.equal((await req('PATCH', '', { version: org0.version, logoImageId: imageId })).status, 200);
    const user = await createUser(server, o);
    const photo = await req('PATCH', `/users/${user.userId}`, { version: 1, photoImageId: imageId });
    assert.equal(photo.status, 200, photo.text);
    const design = {
      version: 1,
      layout: 'stacked',
      style: { fontFamily: 'arial', fontSize: 13, textColor: '#222222', accentColor: '#aa3300', linkColor: '#0055aa' },
      blocks: [{ type: 'logo', imageId, width: 120, link: 'https://acme.example' }],
    };
    const template = await req('POST', '/templates', { name: 'With logo', design, isDefault: false });
    assert.equal(template.status, 201, template.text);
    const campaign = await req('POST', '/campaigns', {
      name: 'Spring',
      startsAt: new Date().toISOString(),
      audience: {},
      variants: [{ imageId, link: 'https://shop.example/', alt: 'Spring', weight: 1 }],
    });
    assert.equal(campaign.status, 201, campaign.text);

    const refused = await req('DELETE', `/images/${imageId}`);
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error.code, 'CONFLICT');
    assert.match(refused.body.error.message, /the org's logo; the photo of 1 user; template "With logo"; campaign "Spring"/);
    assert.deepEqual(refused.body.error.details.uses, {
      orgLogo: true,
      users: 1,
      templates: [{ templateId: template.body.templateId, name: 'With logo' }],
      campaigns: [{ campaignId: campaign.body.campaignId, name: 'Spring' }],
    });
    assert.equal((await fetch(`${server.url}/v1/images/${imageId}`)).status, 200, 'still served');
    assert.equal((await auditActions(o)).includes('image.delete'), false);

    // Each use taken away in turn: the 409 names what is left, and then the delete goes through.
    const org1 = (await req('GET', '')).body;
    assert.equal((await req('PATCH', '', { version: org1.version, logoImageId: null })).status, 200);
    assert.equal((await req('PATCH', `/users/${user.userId}`, { version: photo.body.version, photoImageId: null })).status, 200);
    assert.equal((await req('DELETE', `/campaigns/${campaign.body.campaignId}`)).status, 204);
    const left = await req('DELETE', `/images/${imageId}`);
    assert.equal(left.status, 409);
    assert.deepEqual(left.body.error.details.uses, {
      orgLogo: false,
      users: 0,
      templates: [{ templateId: template.body.templateId, name: 'With logo' }],
      campaigns: [],
    });
    assert.equal((await req('DELETE', `/templates/${template.body.templateId}`)).status, 204);
    assert.equal((await req('DELETE', `/images/${imageId}`)).status, 204);
    assert.equal((await fetch(`${server.url}/v1/images/${imageId}`)).status, 404);

    // A hand-written template that names the image's URL uses it too.
    const hand = await upload(o, png(100, 40), 'image/png');
    const html = await req('POST', '/templates', {
      name: 'Hand',
      html: `<img src="${hand.body.url}" width="100" height="40" alt="">`,
      text: 'x',
      isDefault: false,
    });
    assert.equal(html.status, 201, html.text);
    assert.equal((await req('DELETE', `/images/${hand.body.imageId}`)).status, 409);
  });

  test('refused: wrong type, lying header, malformed header, too large a side, too many bytes; nothing stored', async () => {
    const o = await createOrg(server);
    const trail = (await auditActions(o)).length;
    const refusals: { body: Uint8Array | string; type: string; status: number; field?: string; message?: RegExp }[] = [
      { body: png(10, 10), type: 'image/jpeg', status: 400, field: 'content-type', message: /are image\/png, not the image\/jpeg/ },
      { body: jpeg(10, 10), type: 'image/gif', status: 400, field: 'content-type' },
      { body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), type: 'image/png', status: 400, field: 'content-type' },
      { body: png(10, 10), type: 'image/webp', status: 400, field: 'content-type' },
      { body: Buffer.from('<svg/>'), type: 'image/svg+xml', status: 400, field: 'content-type' },
      { body: png(10, 10).subarray(0, 20), type: 'image/png', status: 400, field: 'body', message: /malformed or cut short/ },
      { body: jpeg(10, 10).subarray(0, 30), type: 'image/jpeg', status: 400, field: 'body' },
      { body: png(0, 10), type: 'image/png', status: 400, field: 'body' },
      { body: png(2001, 1), type: 'image/png', status: 400, field: 'body', message: /2001×1 px; at most 2000/ },
      { body: gif(1, 2001), type: 'image/gif', status: 400, field: 'body' },
      // A 1×1 logical screen carrying a 65535×65535 frame: decoders size their canvas to the frame.
      { body: gifWithFrame(1, 1, 65535, 65535), type: 'image/gif', status: 400, field: 'body', message: /frame of the GIF reaches 65535×65535/ },
      { body: gifWithFrame(10, 10, 2001, 5), type: 'image/gif', status: 400, field: 'body' },
      { body: jpeg(4000, 3000), type: 'image/jpeg', status: 400, field: 'body' },
      { body: Buffer.alloc(0), type: 'image/png', status: 400, field: 'body' },
      { body: JSON.stringify({ image: 'x' }), type: 'application/json', status: 400, field: 'body' },
    ];
    for (const r of refusals) {
      const res = await upload(o, r.body, r.type);
      const what = `${r.type} ${r.body.length} bytes: ${res.status} ${JSON.stringify(res.body)}`;
      assert.equal(res.status, r.status, what);
      assert.ok(res.body.error.correlationId, what);
      if (r.field) assert.equal(res.body.error.details?.field, r.field, what);
      if (r.message) assert.match(res.body.error.message, r.message, what);
    }
    // Over 1 MB: 413 naming the image limit, whether the bytes are a valid image or not.
    const big = Buffer.concat([png(10, 10), Buffer.alloc(1024 * 1024)]);
    const tooBig = await upload(o, big, 'image/png');
    assert.equal(tooBig.status, 413);
    assert.equal(tooBig.body.error.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(tooBig.body.error.details.limitBytes, 1024 * 1024);
    const wayTooBig = await upload(o, Buffer.alloc(3 * 1024 * 1024, 1), 'image/png');
    assert.equal(wayTooBig.status, 413);
    assert.equal(wayTooBig.body.error.details.limitBytes, 1024 * 1024);
    // Exactly 1 MB is allowed.
    const exact = Buffer.concat([png(10, 10)]);
    const padded = Buffer.concat([exact, Buffer.alloc(1024 * 1024 - exact.length)]);
    assert.equal((await upload(o, padded, 'image/png')).status, 201);

    const items = (await list(o)).items;
    assert.equal(items.length, 1, 'only the 1 MB image was stored');
    assert.equal((await auditActions(o)).length, trail + 1);
  });

  test('per-org caps: 500 images and IMAGES_MAX_BYTES_PER_ORG; past them 413 naming the limit, nothing stored', async () => {
    const capped = await startServer({ IMAGES_MAX_BYTES_PER_ORG: '3000' });
    try {
      const o = await createOrg(capped);
      const send = (body: Uint8Array) =>
        fetch(`${capped.url}/v1/orgs/${o.orgId}/images`, {
          method: 'POST',
          headers: { 'x-api-key': o.key, 'content-type': 'image/png' },
          body: new Uint8Array(body),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
      const image = Buffer.concat([png(4, 4), Buffer.alloc(1000 - png(4, 4).length)]); // 1,000 bytes
      for (let i = 0; i < 3; i++) assert.equal((await send(image)).status, 201);
      const over = await send(png(1, 1));
      assert.equal(over.status, 413, JSON.stringify(over.body));
      assert.equal(over.body.error.code, 'PAYLOAD_TOO_LARGE');
      assert.equal(over.body.error.details.limit, 'bytesPerOrg');
      assert.equal(over.body.error.details.maxBytes, 3000);
      // Another org is not held by this one's use; a deletion frees room.
      const other = await createOrg(capped);
      assert.equal(
        (
          await fetch(`${capped.url}/v1/orgs/${other.orgId}/images`, {
            method: 'POST',
            headers: { 'x-api-key': other.key, 'content-type': 'image/png' },
            body: new Uint8Array(png(2, 2)),
          })
        ).status,
        201,
      );
      const first = (await capped.request('GET', `/v1/orgs/${o.orgId}/images`, { key: o.key })).body.items[0].imageId;
      assert.equal((await capped.request('DELETE', `/v1/orgs/${o.orgId}/images/${first}`, { key: o.key })).status, 204);
      assert.equal((await send(png(1, 1))).status, 201);
    } finally {
      await capped.close();
    }

    // 500 images at most: 495 stored, then ten uploads at once: five pass, five are refused.
    const o = await createOrg(server);
    const tiny = png(1, 1);
    for (let i = 0; i < 495; i++) {
      await imagesRepo.insert(server.deps.database.db, {
        id: randomUUID(),
        org_id: o.orgId,
        content_type: 'image/png',
        width: 1,
        height: 1,
        bytes: tiny.length,
        sha256: 'b'.repeat(64),
        data: null,
      });
    }
    const statuses = await Promise.all(Array.from({ length: 10 }, () => upload(o, tiny, 'image/png').then((r) => r.status)));
    assert.deepEqual(statuses.sort(), [201, 201, 201, 201, 201, 413, 413, 413, 413, 413]);
    const past = await upload(o, png(1, 1), 'image/png');
    assert.equal(past.status, 413, JSON.stringify(past.body));
    assert.equal(past.body.error.details.limit, 'imagesPerOrg');
    assert.equal(past.body.error.details.maxImages, 500);
    assert.equal((await imagesRepo.usage(server.deps.database.db, o.orgId)).images, 500, 'concurrent uploads did not pass the cap');
  });

  test('embedded: the bytes are a file in the data directory, not in the database; PostgreSQL keeps them in the row', async () => {
    const o = await createOrg(server);
    const bytes = png(33, 7);
    const made = await upload(o, bytes, 'image/png');
    assert.equal(made.status, 201);
    const id = made.body.imageId;
    const row = await server.deps.database.db.selectFrom('images').select(['data']).where('id', '=', id).executeTakeFirstOrThrow();
    const filesDir = server.deps.database.filesDir;
    if (ON_POSTGRES) {
      assert.equal(filesDir, undefined);
      assert.ok(Buffer.from(row.data!).equals(bytes));
      return;
    }
    assert.equal(row.data, null, 'no bytes in the embedded database');
    const file = join(filesDir!, 'images', o.orgId, id);
    assert.ok(readFileSync(file).equals(bytes));
    assert.ok(Buffer.from(await (await fetch(made.body.url)).arrayBuffer()).equals(bytes));
    assert.equal((await server.request('DELETE', `/v1/orgs/${o.orgId}/images/${id}`, { key: o.key })).status, 204);
    assert.equal(existsSync(file), false, 'a deleted image leaves no file');

    // An image stored before (its bytes in the row) is moved to a file when a service starts on it.
    const legacy = randomUUID();
    const old = gif(5, 6);
    await imagesRepo.insert(server.deps.database.db, {
      id: legacy,
      org_id: o.orgId,
      content_type: 'image/gif',
      width: 5,
      height: 6,
      bytes: old.length,
      sha256: 'a'.repeat(64),
      data: old,
    });
    const next = await startServer({}, { shared: { database: server.deps.database } });
    try {
      assert.ok(readFileSync(join(filesDir!, 'images', o.orgId, legacy)).equals(old));
      const moved = await next.deps.database.db.selectFrom('images').select(['data']).where('id', '=', legacy).executeTakeFirstOrThrow();
      assert.equal(moved.data, null);
      assert.ok(Buffer.from(await (await fetch(`${next.url}/v1/images/${legacy}`)).arrayBuffer()).equals(old));
    } finally {
      await next.close();
    }
  });
});
