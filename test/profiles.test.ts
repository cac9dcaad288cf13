import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { oidcClient, signIn } from './helpers/browser.ts';
import { png } from './helpers/images.ts';

// Richer profiles (DECISIONS wave 3, "Profiles", "Photos", "Who edits what") over HTTP: the new
// user and org fields, custom fields and their ETag, members' limits, photos.
describe('profiles', () => {
  let server: TestServer;
  let org: TestOrg;
  let memberToken: string;
  let memberId: string;
  before(async () => {
    server = await startServer();
    org = await createOrg(server, { seats: 100 });
    const { authUrl, appUrl, stage } = server.deps.config;
    const app = await oidcClient(authUrl, `app-client-${stage}`, appUrl);
    const member = await userWithPassword(server, org, 'member');
    memberId = member.userId;
    memberToken = (await signIn(app, { username: member.email, password: member.password })).tokens.id_token as string;
  });
  after(() => server.close());

  const orgBase = (o: TestOrg = org) => `/v1/orgs/${o.orgId}`;
  const asAdmin = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    server.request(method, path, { key: org.key, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
  const asMember = (method: string, path: string, body?: unknown) =>
    server.request(method, path, { token: memberToken, ...(body !== undefined ? { body } : {}) });
  const getUser = async (userId: string) => (await asAdmin('GET', `${orgBase()}/users/${userId}`)).body;
  const setFields = async (fields: unknown[]) => {
    const res = await asAdmin('PUT', `${orgBase()}/fields`, fields);
    assert.equal(res.status, 200, res.text);
    return res;
  };

  test('a user answers the new profile fields, empty by default; an admin sets them on create and PATCH', async () => {
    const created = await createUser(server, org);
    const fresh = await getUser(created.userId);
    assert.deepEqual([fresh.pronouns, fresh.website, fresh.address, fresh.photoImageId, fresh.social, fresh.attributes], ['', '', '', null, {}, {}]);
    await setFields([{ key: 'booking_link', label: 'Booking link', type: 'url', selfService: true }]);
    const made = await asAdmin('POST', `${orgBase()}/users`, {
      email: `p-${crypto.randomUUID().slice(0, 8)}@example.test`,
      name: 'Grace Hopper',
      pronouns: 'she/her',
      website: 'https://grace.example',
      address: '1 Navy Yard\nArlington',
      social: { linkedin: 'https://www.linkedin.com/in/grace' },
      attributes: { booking_link: 'https://cal.example/grace' },
    });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.address, '1 Navy Yard\nArlington');
    assert.deepEqual(made.body.social, { linkedin: 'https://www.linkedin.com/in/grace' });
    assert.deepEqual(made.body.attributes, { booking_link: 'https://cal.example/grace' });
    const listed = await asAdmin('GET', `${orgBase()}/users?limit=200`);
    const row = listed.body.items.find((u: { userId: string }) => u.userId === made.body.userId);
    assert.equal(row.pronouns, 'she/her', 'the list answers the same resource');
  });

  test('PATCH merges social links and custom values: a key set to null is removed, others stay', async () => {
    await setFields([
      { key: 'booking_link', label: 'Booking link', type: 'url', selfService: true },
      { key: 'desk', label: 'Desk', type: 'text', selfService: false },
    ]);
    const u = await createUser(server, org);
    let res = await asAdmin('PATCH', `${orgBase()}/users/${u.userId}`, {
      version: u.version,
      social: { linkedin: 'https://www.linkedin.com/in/u', x: 'https://x.com/u' },
      attributes: { booking_link: 'https://cal.example/u', desk: '4F-12' },
    });
    assert.equal(res.status, 200, res.text);
    res = await asAdmin('PATCH', `${orgBase()}/users/${u.userId}`, {
      version: res.body.version,
      social: { x: null, github: 'https://github.com/u' },
      attributes: { desk: null },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.social, { linkedin: 'https://www.linkedin.com/in/u', github: 'https://github.com/u' });
    assert.deepEqual(res.body.attributes, { booking_link: 'https://cal.example/u' });
  });

  test('validation: URLs must be http(s), attributes only for defined fields and of their type; each 400 names the field and changes nothing', async () => {
    await setFields([
      { key: 'booking_link', label: 'Booking link', type: 'url', selfService: true },
      { key: 'fax', label: 'Fax', type: 'phone', selfService: false },
    ]);
    const u = await createUser(server, org);
    const cases: [unknown, string][] = [
      [{ website: 'ftp://files.example' }, 'body.website'],
      [{ website: 'javascript:alert(1)' }, 'body.website'],
      [{ social: { x: 'javascript:alert(1)' } }, 'body.social.x'],
      [{ social: { myspace: 'https://myspace.com/u' } }, 'body.social.myspace'],
      [{ attributes: { nope: 'x' } }, 'body.attributes.nope'],
      [{ attributes: { booking_link: 'not a url' } }, 'body.attributes.booking_link'],
      [{ attributes: { fax: 'call me' } }, 'body.attributes.fax'],
      [{ attributes: { 'Bad-Key': 'x' } }, 'body.attributes.Bad-Key'],
      [{ photoImageId: crypto.randomUUID() }, 'body.photoImageId'],
    ];
    for (const [patch, field] of cases) {
      const res = await asAdmin('PATCH', `${orgBase()}/users/${u.userId}`, { version: u.version, ...(patch as object) });
      assert.equal(res.status, 400, `${JSON.stringify(patch)}: ${res.text}`);
      assert.equal(res.body.error.details.field, field, JSON.stringify(patch));
    }
    assert.equal((await getUser(u.userId)).version, u.version, 'nothing changed');
  });

  test('custom fields: GET and PUT answer the whole list and an ETag; a stale If-Match is 412; without it the last write wins', async () => {
    const o = await createOrg(server);
    const base = `/v1/orgs/${o.orgId}/fields`;
    const first = await server.request('GET', base, { key: o.key });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, []);
    const etag = first.headers.get('etag')!;
    const fields = [
      { key: 'booking_link', label: 'Booking link', type: 'url', selfService: true },
      { key: 'desk', label: 'Desk', type: 'text' },
    ];
    const put = await server.request('PUT', base, { key: o.key, body: fields, headers: { 'if-match': etag } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body, [fields[0], { ...fields[1], selfService: false }]);
    assert.notEqual(put.headers.get('etag'), etag);
    const stale = await server.request('PUT', base, { key: o.key, body: [], headers: { 'if-match': etag } });
    assert.equal(stale.status, 412);
    assert.equal(stale.body.error.code, 'PRECONDITION_FAILED');
    const garbage = await server.request('PUT', base, { key: o.key, body: [], headers: { 'if-match': '"99999999999"' } });
    assert.equal(garbage.status, 412);
    const read = await server.request('GET', base, { key: o.key });
    assert.equal(read.body.length, 2, 'the refused writes changed nothing');
    assert.equal(read.headers.get('etag'), put.headers.get('etag'));
    const orgRead = await server.request('GET', `/v1/orgs/${o.orgId}`, { key: o.key });
    assert.deepEqual(orgRead.body.fields, put.body, 'the org answers its fields too');
    const blind = await server.request('PUT', base, { key: o.key, body: [fields[0]] });
    assert.equal(blind.status, 200, 'without If-Match the last write wins');
    for (const [body, field] of [
      [[{ key: '1abc', label: 'x', type: 'text' }], 'body.0.key'],
      [[{ key: 'a', label: 'x', type: 'date' }], 'body.0.type'],
      [[{ key: 'a', label: 'x', type: 'text', extra: 1 }], 'body.0.extra'],
      [
        [
          { key: 'a', label: 'x', type: 'text' },
          { key: 'a', label: 'y', type: 'url' },
        ],
        'body',
      ],
    ] as const) {
      const res = await server.request('PUT', base, { key: o.key, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.details.field, field, JSON.stringify(body));
    }
  });

  test("a field that goes takes users' values with it, and their versions move (renders key on them)", async () => {
    const o = await createOrg(server);
    await server.request('PUT', `/v1/orgs/${o.orgId}/fields`, {
      key: o.key,
      body: [
        { key: 'desk', label: 'Desk', type: 'text' },
        { key: 'team', label: 'Team', type: 'text' },
      ],
    });
    const u = await createUser(server, o, { attributes: { desk: '4F', team: 'Blue' } });
    assert.deepEqual(u.attributes, { desk: '4F', team: 'Blue' });
    await server.request('PUT', `/v1/orgs/${o.orgId}/fields`, { key: o.key, body: [{ key: 'team', label: 'Team', type: 'text' }] });
    const after = (await server.request('GET', `/v1/orgs/${o.orgId}/users/${u.userId}`, { key: o.key })).body;
    assert.deepEqual(after.attributes, { team: 'Blue' });
    assert.equal(after.version, u.version + 1);
  });

  test('a field whose type changes drops the values not of its new type (and only those); values that fit stay', async () => {
    const o = await createOrg(server);
    const fieldsPath = `/v1/orgs/${o.orgId}/fields`;
    const put = async (body: unknown[]) => {
      const res = await server.request('PUT', fieldsPath, { key: o.key, body });
      assert.equal(res.status, 200, res.text);
    };
    await put([
      { key: 'desk', label: 'Desk', type: 'text' },
      { key: 'line', label: 'Line', type: 'text' },
      { key: 'team', label: 'Team', type: 'text' },
    ]);
    const words = await createUser(server, o, { attributes: { desk: 'still selfservice', line: 'ask the desk', team: 'Blue' } });
    const fits = await createUser(server, o, { attributes: { desk: 'https://desk.example/4F', line: '+1 555 0100', team: 'Red' } });
    const untouched = await createUser(server, o, { attributes: { team: 'Green' } });
    await put([
      { key: 'desk', label: 'Desk', type: 'url' },
      { key: 'line', label: 'Line', type: 'phone' },
      { key: 'team', label: 'Team', type: 'text' },
    ]);
    const read = async (userId: string) => (await server.request('GET', `/v1/orgs/${o.orgId}/users/${userId}`, { key: o.key })).body;
    const [w, f, u] = [await read(words.userId), await read(fits.userId), await read(untouched.userId)];
    assert.deepEqual(w.attributes, { team: 'Blue' }, 'text that is no URL or phone number is dropped');
    assert.equal(w.version, words.version + 1, 'its version moves (renders key on it)');
    assert.deepEqual(f.attributes, { desk: 'https://desk.example/4F', line: '+1 555 0100', team: 'Red' }, 'values of the new type stay');
    assert.equal(f.version, fits.version, 'nothing changed for it');
    assert.equal(u.version, untouched.version);
    // Every user now holds only values the API would accept: PATCHing one back in is refused as before.
    const again = await server.request('PATCH', `/v1/orgs/${o.orgId}/users/${words.userId}`, {
      key: o.key,
      body: { version: w.version, attributes: { desk: 'still selfservice' } },
    });
    assert.equal(again.status, 400, again.text);
    assert.equal(again.body.error.details.field, 'body.attributes.desk');
    // Back to text: every value fits, nothing is dropped.
    await put([
      { key: 'desk', label: 'Desk', type: 'text' },
      { key: 'line', label: 'Line', type: 'text' },
      { key: 'team', label: 'Team', type: 'text' },
    ]);
    assert.deepEqual((await read(fits.userId)).attributes, f.attributes);
  });

  test('org profile: website, address, social (merged), logoImageId (an org image) and selfServiceFields through PATCH', async () => {
    const o = await createOrg(server);
    const base = `/v1/orgs/${o.orgId}`;
    let current = (await server.request('GET', base, { key: o.key })).body;
    assert.deepEqual(current.selfServiceFields, ['name', 'pronouns', 'phone', 'mobile', 'photoImageId', 'social']);
    assert.deepEqual([current.website, current.address, current.social, current.logoImageId], ['', '', {}, null]);
    const image = await fetch(`${server.url}${base}/images`, {
      method: 'POST',
      headers: { 'x-api-key': o.key, 'content-type': 'image/png' },
      body: png(200, 60),
    });
    const imageId = ((await image.json()) as { imageId: string }).imageId;
    let res = await server.request('PATCH', base, {
      key: o.key,
      body: {
        version: current.version,
        website: 'https://acme.example',
        address: 'A\nB',
        social: { linkedin: 'https://linkedin.com/company/acme' },
        logoImageId: imageId,
        selfServiceFields: ['name', 'title'],
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      [res.body.website, res.body.address, res.body.logoImageId, res.body.selfServiceFields],
      ['https://acme.example', 'A\nB', imageId, ['name', 'title']],
    );
    res = await server.request('PATCH', base, { key: o.key, body: { version: res.body.version, social: { youtube: 'https://youtube.com/@acme' } } });
    assert.deepEqual(res.body.social, { linkedin: 'https://linkedin.com/company/acme', youtube: 'https://youtube.com/@acme' });
    current = res.body;
    for (const [patch, field] of [
      [{ website: 'mailto:a@b.c' }, 'body.website'],
      [{ logoImageId: crypto.randomUUID() }, 'body.logoImageId'],
      [{ selfServiceFields: ['role'] }, 'body.selfServiceFields.0'],
      [{ selfServiceFields: ['name', 'name'] }, 'body.selfServiceFields'],
    ] as const) {
      const bad = await server.request('PATCH', base, { key: o.key, body: { version: current.version, ...patch } });
      assert.equal(bad.status, 400, JSON.stringify(patch));
      assert.equal(bad.body.error.details.field, field, JSON.stringify(patch));
    }
    // Another org's image is not this org's logo.
    const other = await fetch(`${server.url}/v1/orgs/${org.orgId}/images`, {
      method: 'POST',
      headers: { 'x-api-key': org.key, 'content-type': 'image/png' },
      body: png(10, 10),
    });
    const foreignId = ((await other.json()) as { imageId: string }).imageId;
    const foreign = await server.request('PATCH', base, { key: o.key, body: { version: current.version, logoImageId: foreignId } });
    assert.equal(foreign.status, 400);
  });

  test('who edits what: a member changes only their own self-service fields and self-service custom fields; everything else 403, nothing changed', async () => {
    await setFields([
      { key: 'booking_link', label: 'Booking link', type: 'url', selfService: true },
      { key: 'desk', label: 'Desk', type: 'text', selfService: false },
    ]);
    const self = `${orgBase()}/users/${memberId}`;
    let me = (await asMember('GET', self)).body;
    const allowed = await asMember('PATCH', self, {
      version: me.version,
      name: 'Mo Member',
      pronouns: 'they/them',
      phone: '+1 555 0100',
      mobile: '+1 555 0101',
      social: { github: 'https://github.com/mo' },
      attributes: { booking_link: 'https://cal.example/mo' },
    });
    assert.equal(allowed.status, 200, allowed.text);
    me = allowed.body;
    for (const [patch, field] of [
      [{ title: 'Chief' }, 'title'],
      [{ department: 'Board' }, 'department'],
      [{ website: 'https://mo.example' }, 'website'],
      [{ address: 'Somewhere' }, 'address'],
      [{ attributes: { desk: '1A' } }, 'attributes.desk'],
      [{ role: 'admin' }, 'role'],
    ] as const) {
      const res = await asMember('PATCH', self, { version: me.version, ...patch });
      assert.equal(res.status, 403, `${JSON.stringify(patch)}: ${res.text}`);
      assert.equal(res.body.error.details.field, field);
    }
    // A custom field the org never defined is bad input, for a member as for an admin: 400 naming it.
    for (const patch of [{ attributes: { nope: 'x' } }, { name: 'Mo', attributes: { booking_link: 'https://cal.example/mo2', nope: 'x' } }]) {
      const res = await asMember('PATCH', self, { version: me.version, ...patch });
      assert.equal(res.status, 400, `${JSON.stringify(patch)}: ${res.text}`);
      assert.equal(res.body.error.code, 'BAD_REQUEST');
      assert.equal(res.body.error.details.field, 'body.attributes.nope');
    }
    const other = await createUser(server, org);
    assert.equal((await asMember('PATCH', `${orgBase()}/users/${other.userId}`, { version: other.version, name: 'x' })).status, 403);
    assert.equal(
      (await asMember('PATCH', `${orgBase()}/users/${other.userId}`, { version: other.version, attributes: { nope: 'x' } })).status,
      403,
      "another's profile stays refused whatever the patch",
    );
    assert.equal((await asMember('GET', self)).body.version, me.version, 'the refusals changed nothing');
    // An admin lets members edit their title: the same request now passes.
    const o = (await asAdmin('GET', orgBase())).body;
    const widened = await asAdmin('PATCH', orgBase(), { version: o.version, selfServiceFields: [...o.selfServiceFields, 'title'] });
    assert.equal(widened.status, 200, widened.text);
    const title = await asMember('PATCH', self, { version: me.version, title: 'Chief' });
    assert.equal(title.status, 200, title.text);
    assert.equal(title.body.title, 'Chief');
    // An admin still changes everything.
    const byAdmin = await asAdmin('PATCH', self, { version: title.body.version, department: 'Ops', attributes: { desk: '2B' } });
    assert.equal(byAdmin.status, 200, byAdmin.text);
    const back = (await asAdmin('GET', orgBase())).body;
    await asAdmin('PATCH', orgBase(), { version: back.version, selfServiceFields: ['name', 'pronouns', 'phone', 'mobile', 'photoImageId', 'social'] });
  });

  test('photos: the user themself or an admin uploads one (the image rules apply), DELETE clears it; others 403 and nothing is stored', async () => {
    const photoPath = (userId: string) => `${server.url}${orgBase()}/users/${userId}/photo`;
    const upload = (userId: string, auth: Record<string, string>, body: Buffer, type = 'image/png') =>
      fetch(photoPath(userId), { method: 'POST', headers: { ...auth, 'content-type': type }, body });
    const imagesCount = async () => (await asAdmin('GET', `${orgBase()}/images?limit=200`)).body.items.length;
    const bearer = { authorization: `Bearer ${memberToken}` };

    const mine = await upload(memberId, bearer, png(240, 240));
    assert.equal(mine.status, 200, await mine.clone().text());
    const me = (await mine.json()) as { photoImageId: string; version: number };
    assert.ok(me.photoImageId);
    const served = await fetch(`${server.url}/v1/images/${me.photoImageId}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');

    const other = await createUser(server, org);
    const before = await imagesCount();
    const foreign = await upload(other.userId, bearer, png(10, 10));
    assert.equal(foreign.status, 403);
    assert.equal(await imagesCount(), before, 'a refused upload stores no image');
    const byAdmin = await upload(other.userId, { 'x-api-key': org.key }, png(120, 120));
    assert.equal(byAdmin.status, 200);
    assert.ok(((await byAdmin.json()) as { photoImageId: string }).photoImageId);

    const wrongType = await upload(memberId, bearer, png(10, 10), 'image/jpeg');
    assert.equal(wrongType.status, 400);
    const tooWide = await upload(memberId, bearer, png(2001, 1));
    assert.equal(tooWide.status, 400);
    const tooBig = await upload(memberId, bearer, Buffer.concat([png(10, 10), Buffer.alloc(1024 * 1024)]));
    assert.equal(tooBig.status, 413);
    const stale = await fetch(photoPath(memberId), {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'image/png', 'if-match': '"1"' },
      body: png(10, 10),
    });
    assert.equal(stale.status, 412);
    assert.equal((await getUser(memberId)).photoImageId, me.photoImageId, 'refused uploads left the photo as it was');

    const cleared = await asMember('DELETE', `${orgBase()}/users/${memberId}/photo`);
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.photoImageId, null);

    // When the org takes photos out of selfServiceFields, only admins change them.
    const o = (await asAdmin('GET', orgBase())).body;
    await asAdmin('PATCH', orgBase(), { version: o.version, selfServiceFields: ['name'] });
    assert.equal((await upload(memberId, bearer, png(10, 10))).status, 403);
    assert.equal((await asMember('DELETE', `${orgBase()}/users/${memberId}/photo`)).status, 403);
    const o2 = (await asAdmin('GET', orgBase())).body;
    await asAdmin('PATCH', orgBase(), { version: o2.version, selfServiceFields: ['name', 'pronouns', 'phone', 'mobile', 'photoImageId', 'social'] });
  });

  test('a replaced or removed photo is deleted unless something else shows it; a refused upload keeps no image', async () => {
    const photoPath = (userId: string) => `${server.url}${orgBase()}/users/${userId}/photo`;
    const bearer = { authorization: `Bearer ${memberToken}` };
    const upload = async (userId: string, auth: Record<string, string>, headers: Record<string, string> = {}) => {
      const res = await fetch(photoPath(userId), { method: 'POST', headers: { ...auth, 'content-type': 'image/png', ...headers }, body: png(200, 200) });
      return { status: res.status, body: (await res.json()) as { photoImageId: string; version: number } };
    };
    const imageIds = async () => ((await asAdmin('GET', `${orgBase()}/images?limit=200`)).body.items as { imageId: string }[]).map((i) => i.imageId);
    const served = async (imageId: string) => (await fetch(`${server.url}/v1/images/${imageId}`)).status;

    // A member uploading photo after photo keeps one image, not one per upload.
    const start = await imageIds();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await upload(memberId, bearer);
      assert.equal(res.status, 200);
      ids.push(res.body.photoImageId);
    }
    const latest = ids.at(-1)!;
    assert.deepEqual(
      (await imageIds()).filter((id) => !start.includes(id)),
      [latest],
    );
    for (const id of ids.slice(0, -1)) assert.equal(await served(id), 404, 'a replaced photo is gone');
    assert.equal(await served(latest), 200);

    // Refused after the bytes were stored (a stale If-Match): no image stays behind.
    const stale = await upload(memberId, bearer, { 'if-match': '"1"' });
    assert.equal(stale.status, 412);
    assert.deepEqual(
      (await imageIds()).filter((id) => !start.includes(id)),
      [latest],
    );

    // Still shown elsewhere (an admin made it the logo): replacing it keeps it.
    const o = (await asAdmin('GET', orgBase())).body;
    assert.equal((await asAdmin('PATCH', orgBase(), { version: o.version, logoImageId: latest })).status, 200);
    const next = await upload(memberId, bearer);
    assert.equal(await served(latest), 200, 'the logo still shows it');

    // DELETE …/photo deletes it; an image uploaded through POST …/images and set as a photo stays.
    const removed = await asMember('DELETE', `${orgBase()}/users/${memberId}/photo`);
    assert.equal(removed.status, 200, removed.text);
    assert.equal(await served(next.body.photoImageId), 404);
    const admins = await fetch(`${server.url}${orgBase()}/images`, {
      method: 'POST',
      headers: { 'x-api-key': org.key, 'content-type': 'image/png' },
      body: png(50, 50),
    });
    const adminImage = ((await admins.json()) as { imageId: string }).imageId;
    const set = await asMember('PATCH', `${orgBase()}/users/${memberId}`, { version: removed.body.version, photoImageId: adminImage });
    assert.equal(set.status, 200, set.text);
    assert.equal((await upload(memberId, bearer)).status, 200);
    assert.equal(await served(adminImage), 200, "an admin's upload is the admin's to delete");

    // A user deleted through the API takes their photo with them.
    const gone = await createUser(server, org);
    const theirs = await upload(gone.userId, { 'x-api-key': org.key });
    assert.equal((await asAdmin('DELETE', `${orgBase()}/users/${gone.userId}`)).status, 204);
    assert.equal(await served(theirs.body.photoImageId), 404);
    const o2 = (await asAdmin('GET', orgBase())).body;
    await asAdmin('PATCH', orgBase(), { version: o2.version, logoImageId: null });
  });

  test('CSV import takes pronouns, website and address columns', async () => {
    const csv = `email,name,pronouns,website,address\nimp-${crypto.randomUUID().slice(0, 8)}@example.test,Imp,he/him,https://imp.example,"1 Road\nTown"\n`;
    const res = await server.request('POST', `${orgBase()}/users/import`, { key: org.key, rawBody: csv, headers: { 'content-type': 'text/csv' } });
    assert.equal(res.status, 200, res.text);
    const [row] = res.body.results;
    assert.equal(row.status, 'created', JSON.stringify(row));
    const u = await getUser(row.userId);
    assert.deepEqual([u.pronouns, u.website, u.address], ['he/him', 'https://imp.example', '1 Road\nTown']);
    const bad = await server.request('POST', `${orgBase()}/users/import`, {
      key: org.key,
      rawBody: 'email,website\nbad@example.test,ftp://x\n',
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(bad.body.results[0].status, 'refused');
  });
});
