// Users' photos from the directory (docs/api.md, "Photos"; src/directory/photos.ts), over the real
// sync against the fakes of Google's Directory API (users.photos.get) and Microsoft Graph
// (/users/{id}/photo and /photo/$value), reached through their configured base URLs: a photo
// arrives as one of the org's images; an unchanged one is not downloaded again; a changed one
// replaces it (the old image deleted); one gone from the directory goes; a photo an admin uploaded
// stays; a photo past the image rules is refused without failing the sync.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, type TestOrg } from './helpers/fixtures.ts';
import type { FakeGoogle } from './helpers/fake-google.ts';
import { connect, googleSuite, jobsSettled, waitForJob, workspace } from './helpers/google-setup.ts';
import { graphUser, setGraphPhoto, startFakeMicrosoft, type FakeMicrosoft } from './helpers/fake-microsoft.ts';
import { jpeg, png } from './helpers/images.ts';

interface ListedUser {
  userId: string;
  email: string;
  photoImageId: string | null;
  version: number;
}

const usersOf = async (server: TestServer, org: TestOrg) =>
  (await server.request('GET', `/v1/orgs/${org.orgId}/users?limit=200`, { key: org.key })).body.items as ListedUser[];
const byEmail = async (server: TestServer, org: TestOrg, email: string) => (await usersOf(server, org)).find((u) => u.email === email)!;

/** The image's bytes as mail clients fetch them (status and body). */
async function served(server: TestServer, imageId: string): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(`${server.url}/v1/images/${imageId}`);
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe('photos from Google Workspace', () => {
  let fake: FakeGoogle;
  let server: TestServer;
  googleSuite((g) => ({ fake, server } = g));

  const sync = async (org: TestOrg) => {
    const res = await server.request('POST', `/v1/orgs/${org.orgId}/integrations/google/sync`, { key: org.key });
    assert.equal(res.status, 202, res.text);
    assert.equal((await waitForJob(server, org, res.body.jobId)).state, 'succeeded');
  };

  test('a photo arrives with the user, is fetched again only once it changes, is replaced, and goes when Google drops it', async () => {
    const org = await createOrg(server, { seats: 20 });
    const ws = workspace(fake, 3);
    const [withPhoto, without, later] = ws.users as [(typeof ws.users)[0], (typeof ws.users)[0], (typeof ws.users)[0]];
    const first = jpeg(96, 96);
    fake.setPhoto(withPhoto.primaryEmail, { data: first, mimeType: 'image/jpeg', width: 96, height: 96 });
    await connect(server, org, ws, { pushSignatures: false });
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');

    const synced = await byEmail(server, org, withPhoto.primaryEmail);
    assert.ok(synced.photoImageId, 'the directory photo became the user photo');
    assert.deepEqual(await served(server, synced.photoImageId), { status: 200, bytes: first }, 'served byte for byte');
    assert.equal((await byEmail(server, org, without.primaryEmail)).photoImageId, null, 'no photo in Google, none here');
    assert.deepEqual(fake.photoRequests, [withPhoto.id], 'only the user whose listing has a photo was asked for one');

    // Nothing changed in Google: the listing's etag saves every download.
    await sync(org);
    assert.equal(fake.photoRequests.length, 1, 'an unchanged photo is not downloaded again');
    assert.equal((await byEmail(server, org, withPhoto.primaryEmail)).version, synced.version, 'nor is the user changed');

    // A new photo replaces the old one, whose image is deleted; a user who gains one gets it.
    const second = png(120, 120);
    fake.setPhoto(withPhoto.primaryEmail, { data: second, mimeType: 'image/png', width: 120, height: 120 });
    fake.setPhoto(later.primaryEmail, { data: jpeg(64, 64), mimeType: 'image/jpeg', width: 64, height: 64 });
    await sync(org);
    const replaced = await byEmail(server, org, withPhoto.primaryEmail);
    assert.notEqual(replaced.photoImageId, synced.photoImageId);
    assert.deepEqual(await served(server, replaced.photoImageId!), { status: 200, bytes: second });
    assert.equal((await served(server, synced.photoImageId)).status, 404, "the directory's previous photo is deleted");
    assert.ok((await byEmail(server, org, later.primaryEmail)).photoImageId, 'a new photo arrives');
    assert.equal(fake.photoRequests.length, 3, 'two changed photos, two downloads');

    // Removed in Google: removed here, without a download.
    fake.setPhoto(withPhoto.primaryEmail, undefined);
    await sync(org);
    assert.equal((await byEmail(server, org, withPhoto.primaryEmail)).photoImageId, null);
    assert.equal((await served(server, replaced.photoImageId!)).status, 404);
    assert.equal(fake.photoRequests.length, 3);

    // A user gone from Google is deleted here, and their photo with them.
    const leaving = await byEmail(server, org, later.primaryEmail);
    assert.equal((await served(server, leaving.photoImageId!)).status, 200);
    fake.users.delete(later.primaryEmail.toLowerCase());
    await sync(org);
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/users/${leaving.userId}`, { key: org.key })).status, 404);
    assert.equal((await served(server, leaving.photoImageId!)).status, 404, "a deleted user's photo is deleted");
    const audit = await server.request('GET', `/v1/orgs/${org.orgId}/audit?action=user.update&limit=100`, { key: org.key });
    const photoEntries = audit.body.items.filter((e: { changes: string[] }) => e.changes.includes('photoImageId'));
    assert.ok(
      photoEntries.length >= 4 && photoEntries.every((e: { actor: { id: string } }) => e.actor.id === 'directory:google'),
      'each change audited as the sync',
    );
  });

  test("a photo an admin uploaded (or removed) is kept: the sync never replaces a person's choice", async () => {
    const org = await createOrg(server, { seats: 20 });
    const ws = workspace(fake, 2);
    const [chosen, cleared] = ws.users as [(typeof ws.users)[0], (typeof ws.users)[0]];
    fake.setPhoto(cleared.primaryEmail, { data: jpeg(96, 96), mimeType: 'image/jpeg', width: 96, height: 96 });
    await connect(server, org, ws, { pushSignatures: false });
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');

    const user = await byEmail(server, org, chosen.primaryEmail);
    const uploaded = png(200, 200, [200, 30, 30]);
    const upRes = await fetch(`${server.url}/v1/orgs/${org.orgId}/users/${user.userId}/photo`, {
      method: 'POST',
      headers: { 'x-api-key': org.key, 'content-type': 'image/png' },
      body: uploaded,
    });
    assert.equal(upRes.status, 200, await upRes.clone().text());
    const up = { body: (await upRes.json()) as ListedUser };
    const removed = await byEmail(server, org, cleared.primaryEmail);
    assert.ok(removed.photoImageId);
    assert.equal((await server.request('DELETE', `/v1/orgs/${org.orgId}/users/${removed.userId}/photo`, { key: org.key })).status, 200);

    fake.setPhoto(chosen.primaryEmail, { data: jpeg(96, 96), mimeType: 'image/jpeg', width: 96, height: 96 });
    fake.setPhoto(cleared.primaryEmail, { data: jpeg(80, 80), mimeType: 'image/jpeg', width: 80, height: 80 });
    const asked = fake.photoRequests.length;
    await sync(org);
    assert.equal((await byEmail(server, org, chosen.primaryEmail)).photoImageId, up.body.photoImageId, "the admin's upload stays");
    assert.equal((await byEmail(server, org, cleared.primaryEmail)).photoImageId, null, "the admin's removal stays");
    assert.equal(fake.photoRequests.length, asked, 'neither photo is even downloaded');
  });
});

describe('photos from Microsoft Entra', () => {
  let fake: FakeMicrosoft;
  let server: TestServer;
  before(async () => {
    fake = await startFakeMicrosoft();
    server = await startServer({ MICROSOFT_LOGIN_URL: fake.url, MICROSOFT_GRAPH_URL: fake.url, JOBS_POLL_MS: '50', JOBS_RETRY_BASE_MS: '100' });
  });
  after(async () => {
    await server?.close();
    await fake?.close();
  });

  test('the metadata is asked for, the bytes only when the photo changed; an oversized photo is refused and the sync still succeeds', async () => {
    const org = await createOrg(server, { seats: 20 });
    const ada = graphUser({ displayName: 'Ada Lovelace' });
    const grace = graphUser({ displayName: 'Grace Hopper' });
    const linus = graphUser({ displayName: 'Linus Torvalds' });
    const tenantId = randomUUID();
    const tenant = { clientId: randomUUID(), clientSecret: 'the-right-secret', users: [ada, grace, linus] };
    fake.tenants.set(tenantId, tenant);
    const adaPhoto = jpeg(240, 240);
    setGraphPhoto(tenant, ada.id, { data: adaPhoto, contentType: 'image/jpeg', width: 240, height: 240 });
    // Past the 1 MB of the image rules: refused, never stored.
    setGraphPhoto(tenant, linus.id, {
      data: Buffer.concat([jpeg(640, 640), Buffer.alloc(1024 * 1024 + 1)]),
      contentType: 'image/jpeg',
      width: 640,
      height: 640,
    });
    const connected = await server.request('PUT', `/v1/orgs/${org.orgId}/integrations/microsoft`, {
      key: org.key,
      body: { tenantId, clientId: tenant.clientId, clientSecret: tenant.clientSecret },
    });
    assert.equal(connected.status, 200, connected.text);
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'the sync succeeded');

    const downloads = () => fake.requests.filter((r) => r.path.endsWith('/photo/$value')).map((r) => r.path.split('/')[3]);
    const adaUser = await byEmail(server, org, ada.mail!);
    assert.ok(adaUser.photoImageId);
    assert.deepEqual(await served(server, adaUser.photoImageId), { status: 200, bytes: adaPhoto });
    assert.equal((await byEmail(server, org, grace.mail!)).photoImageId, null, 'Graph has none (404): none here');
    assert.equal((await byEmail(server, org, linus.mail!)).photoImageId, null, 'an oversized photo is refused');
    assert.deepEqual(downloads().sort(), [ada.id, linus.id].sort());

    // Again: the marks are unchanged, so nothing is downloaded (the refused photo included).
    const sync = await server.request('POST', `/v1/orgs/${org.orgId}/integrations/microsoft/sync`, { key: org.key });
    assert.equal(sync.status, 202, sync.text);
    assert.deepEqual(await jobsSettled(server, org.orgId), []);
    assert.equal(downloads().length, 2, 'unchanged photos are not downloaded again');
    assert.equal((await byEmail(server, org, ada.mail!)).version, adaUser.version);

    // Grace gains a photo: only hers is downloaded.
    setGraphPhoto(tenant, grace.id, { data: png(96, 96), contentType: 'image/png', width: 96, height: 96 });
    const again = await server.request('POST', `/v1/orgs/${org.orgId}/integrations/microsoft/sync`, { key: org.key });
    assert.equal(again.status, 202, again.text);
    assert.deepEqual(await jobsSettled(server, org.orgId), []);
    assert.ok((await byEmail(server, org, grace.mail!)).photoImageId);
    assert.deepEqual(downloads().slice(2), [grace.id]);
  });
});
