import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, type TestOrg } from './helpers/fixtures.ts';
import { png } from './helpers/images.ts';

// What signatures see of richer profiles (DECISIONS wave 3, "Profiles"): every new variable
// renders, the save knows them, and a change of any of them is a new render (the output cache
// keys on the user's and the org's versions).
const EVERY = [
  'P={{ user.pronouns }}',
  'W={{ user.website }}',
  'A={{ user.address }}',
  'PH={{ user.photo_url }}',
  'LI={{ user.social.linkedin }}',
  'GH={{ user.social.github }}',
  'BK={{ user.attributes.booking_link }}',
  'OW={{ org.website }}',
  'OA={{ org.address }}',
  'OX={{ org.social.x }}',
  'LOGO={{ org.logo_url }}',
].join('|');

describe('rendering richer profiles', () => {
  let server: TestServer;
  let org: TestOrg;
  before(async () => {
    server = await startServer();
    org = await createOrg(server);
  });
  after(() => server.close());

  const base = () => `/v1/orgs/${org.orgId}`;
  const req = (method: string, path: string, body?: unknown) =>
    server.request(method, `${base()}${path}`, { key: org.key, ...(body !== undefined ? { body } : {}) });
  const uploadImage = async () => {
    const res = await fetch(`${server.url}${base()}/images`, {
      method: 'POST',
      headers: { 'x-api-key': org.key, 'content-type': 'image/png' },
      body: png(100, 100),
    });
    return ((await res.json()) as { imageId: string }).imageId;
  };

  test('every new variable renders the stored value, in html and text; the save warns of none of them', async () => {
    await req('PUT', '/fields', [{ key: 'booking_link', label: 'Booking link', type: 'url', selfService: true }]);
    const template = await createTemplate(server, org, { html: `<p>${EVERY}</p>`, text: EVERY, isDefault: false });
    assert.deepEqual(template.warnings, []);
    const logo = await uploadImage();
    const current = (await req('GET', '')).body;
    const orgSet = await req('PATCH', '', {
      version: current.version,
      website: 'https://acme.example',
      address: 'HQ\nTown',
      social: { x: 'https://x.com/acme' },
      logoImageId: logo,
    });
    assert.equal(orgSet.status, 200, orgSet.text);
    const user = await createUser(server, org, {
      pronouns: 'she/her',
      website: 'https://ada.example',
      address: '1 Road\nCity',
      social: { linkedin: 'https://linkedin.com/in/ada', github: 'https://github.com/ada' },
      attributes: { booking_link: 'https://cal.example/ada' },
    });
    const photo = await fetch(`${server.url}${base()}/users/${user.userId}/photo`, {
      method: 'POST',
      headers: { 'x-api-key': org.key, 'content-type': 'image/png' },
      body: png(200, 200),
    });
    const photoId = ((await photo.json()) as { photoImageId: string }).photoImageId;
    const out = await req('POST', `/render/${user.userId}`, { templateId: template.templateId });
    assert.equal(out.status, 200, out.text);
    const baseUrl = server.deps.config.baseUrl.replace(/\/$/, '');
    const expected = [
      'P=she/her',
      'W=https://ada.example',
      'A=1 Road\nCity',
      `PH=${baseUrl}/v1/images/${photoId}`,
      'LI=https://linkedin.com/in/ada',
      'GH=https://github.com/ada',
      'BK=https://cal.example/ada',
      'OW=https://acme.example',
      'OA=HQ\nTown',
      'OX=https://x.com/acme',
      `LOGO=${baseUrl}/v1/images/${logo}`,
    ].join('|');
    assert.equal(out.body.text, expected);
    assert.ok(out.body.html.includes(expected), out.body.html);
  });

  test('the unknown-variable warning lists the new fields; a misspelt one still warns', async () => {
    const res = await req('POST', '/templates', { name: 'typo', html: '<p>{{ user.pronoun }} {{ org.logo }}</p>', isDefault: false });
    assert.equal(res.status, 201, res.text);
    const [first, second] = res.body.warnings as string[];
    assert.match(first!, /Unknown variable "org\.logo"/);
    assert.match(second!, /Unknown variable "user\.pronoun"/);
    for (const known of [
      'user.pronouns',
      'user.photo_url',
      'user.social.linkedin',
      'user.attributes.<key>',
      'org.website',
      'org.address',
      'org.social.github',
      'org.logo_url',
    ]) {
      assert.ok(first!.includes(known), `${known} in ${first}`);
    }
  });

  test("a render follows every change: the user's fields, the photo, the org's links and logo, a custom field that goes", async () => {
    await req('PUT', '/fields', [{ key: 'booking_link', label: 'Booking link', type: 'url', selfService: true }]);
    const template = await createTemplate(server, org, { html: `<p>${EVERY}</p>`, text: EVERY, isDefault: false });
    const user = await createUser(server, org, { attributes: { booking_link: 'https://cal.example/one' } });
    const render = async () => (await req('POST', `/render/${user.userId}`, { templateId: template.templateId })).body.text as string;
    assert.match(await render(), /BK=https:\/\/cal\.example\/one/);
    let u = (await req('GET', `/users/${user.userId}`)).body;
    u = (await req('PATCH', `/users/${user.userId}`, { version: u.version, pronouns: 'they/them', social: { github: 'https://github.com/two' } })).body;
    assert.match(await render(), /P=they\/them\|.*GH=https:\/\/github\.com\/two/s);
    await fetch(`${server.url}${base()}/users/${user.userId}/photo`, {
      method: 'POST',
      headers: { 'x-api-key': org.key, 'content-type': 'image/png' },
      body: png(50, 50),
    });
    const withPhoto = (await req('GET', `/users/${user.userId}`)).body;
    assert.ok((await render()).includes(`/v1/images/${withPhoto.photoImageId}`));
    await req('DELETE', `/users/${user.userId}/photo`);
    assert.match(await render(), /PH=\|/);
    const o = (await req('GET', '')).body;
    await req('PATCH', '', { version: o.version, website: 'https://changed.example', logoImageId: null });
    assert.match(await render(), /OW=https:\/\/changed\.example\|.*LOGO=$/s);
    await req('PUT', '/fields', []);
    assert.match(await render(), /BK=\|/);
  });
});
