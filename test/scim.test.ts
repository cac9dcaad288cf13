// SCIM 2.0 provisioning (docs/scim.md) as Okta and Entra ID drive it: each request below is shaped
// as the provider's documentation shows it (Okta's "SCIM 2.0 protocol reference"; Microsoft's
// "Develop and plan provisioning for a SCIM endpoint": capitalised ops, string booleans), and the
// outcome is read back through our own API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startServer, type TestServer, type TestResponse } from './helpers/server.ts';
import { enableScim, SCIM } from './helpers/scim.ts';
import { createOrg, createUser, type TestOrg } from './helpers/fixtures.ts';
import { png } from './helpers/images.ts';
import Fastify from 'fastify';
import { MemoryRateLimiter } from '../src/ratelimit/memory.ts';
import { scimRoutes, SCIM_PREFIX } from '../src/scim/routes.ts';

const { user: CORE, enterprise: ENTERPRISE, group: GROUP, patchOp: PATCH_OP, error: ERROR } = SCIM;

describe('SCIM 2.0 provisioning', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const enable = (org: TestOrg) => enableScim(server, org);
  /** A request as a SCIM client sends it: its token, SCIM's content type. */
  const scim =
    (token: string) =>
    async (method: string, path: string, body?: unknown): Promise<TestResponse> => {
      const res = await server.request(method, `/scim/v2${path}`, {
        token,
        ...(body === undefined
          ? {}
          : { rawBody: JSON.stringify(body), headers: { 'content-type': 'application/scim+json; charset=utf-8', accept: 'application/scim+json' } }),
      });
      if (res.status !== 204) assert.match(res.headers.get('content-type') ?? '', /^application\/scim\+json/, `${method} ${path}: ${res.text}`);
      return res;
    };
  const ourUser = async (org: TestOrg, userId: string) => server.request('GET', `/v1/orgs/${org.orgId}/users/${userId}`, { key: org.key });
  const isScimError = (res: TestResponse, status: number, scimType?: string) => {
    assert.equal(res.status, status, res.text);
    assert.deepEqual(res.body.schemas, [ERROR]);
    assert.equal(res.body.status, String(status));
    assert.equal(typeof res.body.detail, 'string');
    if (scimType) assert.equal(res.body.scimType, scimType);
  };

  test("Okta's sequence: test connection, look up, create, read, PUT, deactivate, reactivate; groups with pushes", async () => {
    const org = await createOrg(server, { seats: 20 });
    const { baseUrl, token } = await enable(org);
    assert.equal(baseUrl, `${server.deps.config.baseUrl}/scim/v2`);
    assert.match(token, /^scim_[A-Za-z0-9_-]{43}$/);
    const okta = scim(token);

    const probe = await okta('GET', '/Users?startIndex=1&count=2');
    assert.equal(probe.status, 200);
    assert.deepEqual(probe.body.schemas, ['urn:ietf:params:scim:api:messages:2.0:ListResponse']);
    assert.equal(probe.body.startIndex, 1);
    assert.equal(probe.body.itemsPerPage, 1, 'the owner');
    assert.equal(probe.body.totalResults, 1);
    const email = `okta-${randomUUID().slice(0, 8)}@example.test`;
    const lookup = await okta('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}&startIndex=1&count=100`);
    assert.deepEqual([lookup.body.totalResults, lookup.body.Resources], [0, []]);

    const created = await okta('POST', '/Users', {
      schemas: [CORE],
      userName: email,
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: email, type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    assert.equal(created.headers.get('location'), `${baseUrl}/Users/${id}`);
    assert.deepEqual(
      [created.body.userName, created.body.active, created.body.externalId, created.body.displayName],
      [email, true, '00ujl29u0le5T6Aj10h7', 'Test User'],
    );
    let user = (await ourUser(org, id)).body;
    assert.deepEqual([user.email, user.name, user.status, user.role], [email, 'Test User', 'invited', 'member']);
    const tokens = await server.deps.database.db.selectFrom('account_tokens').select('purpose').where('account_id', '=', id).execute();
    assert.deepEqual(tokens, [], 'no invitation for a user SCIM created');
    const jobs = await server.deps.database.db.selectFrom('jobs').select('kind').where('org_id', '=', org.orgId).where('kind', 'like', 'mail%').execute();
    assert.deepEqual(jobs, [], 'no mail queued');

    assert.equal((await okta('GET', `/Users/${id}`)).body.userName, email);
    const found = await okta('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email.toUpperCase()}"`)}&startIndex=1&count=100`);
    assert.deepEqual(
      found.body.Resources.map((r: { id: string }) => r.id),
      [id],
      'userName compares without case',
    );

    // An app integration built in the wizard updates with PUT, the whole user.
    const put = await okta('PUT', `/Users/${id}`, {
      schemas: [CORE, ENTERPRISE],
      id,
      userName: email,
      name: { givenName: 'Tess', familyName: 'User' },
      emails: [{ primary: true, value: email, type: 'work' }],
      title: 'Engineer',
      phoneNumbers: [
        { value: '+1 555 0100', type: 'work' },
        { value: '+1 555 0199', type: 'mobile' },
      ],
      [ENTERPRISE]: { department: 'R&D' },
      active: true,
    });
    assert.equal(put.status, 200, put.text);
    user = (await ourUser(org, id)).body;
    assert.deepEqual([user.name, user.title, user.phone, user.mobile, user.department], ['Tess User', 'Engineer', '+1 555 0100', '+1 555 0199', 'R&D']);

    // Deactivate and reactivate (OIN integrations PATCH, without a path).
    const off = await okta('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.body.active, false);
    assert.equal((await ourUser(org, id)).body.status, 'suspended');
    const on = await okta('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] });
    assert.equal(on.body.active, true);
    assert.equal((await ourUser(org, id)).body.status, 'invited');

    // Groups: push a group with a member, rename it, add and remove members.
    const other = (
      await okta('POST', '/Users', {
        schemas: [CORE],
        userName: `okta2-${randomUUID().slice(0, 8)}@example.test`,
        name: { givenName: 'Two', familyName: 'Person' },
        active: true,
      })
    ).body.id as string;
    const group = await okta('POST', '/Groups', { schemas: [GROUP], displayName: 'Test SCIMv2', members: [{ value: id, display: email }] });
    assert.equal(group.status, 201, group.text);
    const gid = group.body.id as string;
    assert.deepEqual(
      group.body.members.map((m: { value: string }) => m.value),
      [id],
    );
    const renamed = await okta('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { id: gid, displayName: 'Sales EMEA' } }],
    });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.displayName, 'Sales EMEA');
    await okta('PATCH', `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: other, display: 'Two' }] }] });
    const listed = await server.request('GET', `/v1/orgs/${org.orgId}/groups`, { key: org.key });
    assert.deepEqual(listed.body.items, [{ groupId: gid, displayName: 'Sales EMEA', memberCount: 2 }]);
    const removed = await okta('PATCH', `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }] });
    assert.deepEqual(
      removed.body.members.map((m: { value: string }) => m.value),
      [other],
    );
    const members = await server.request('GET', `/v1/orgs/${org.orgId}/users?group=${gid}`, { key: org.key });
    assert.deepEqual(
      members.body.items.map((u: { userId: string }) => u.userId),
      [other],
    );
    assert.deepEqual(
      (await okta('GET', `/Users/${other}`)).body.groups.map((g: { display: string }) => g.display),
      ['Sales EMEA'],
    );
    // A PUT replaces the whole group: its name and its members (an id in capitals is the same id).
    const memberIds = (res: { body: { members: { value: string }[] } }) => res.body.members.map((m) => m.value).sort();
    const putGroup = (members: string[]) =>
      okta('PUT', `/Groups/${gid}`, { schemas: [GROUP], displayName: 'Sales', members: members.map((value) => ({ value })) });
    const both = await putGroup([id.toUpperCase(), other]);
    assert.equal(both.status, 200, both.text);
    assert.equal(both.body.displayName, 'Sales');
    assert.deepEqual(memberIds(both), [id, other].sort());
    assert.deepEqual(memberIds(await putGroup([other, id])), [id, other].sort(), 'the same members again: unchanged');
    assert.deepEqual(memberIds(await putGroup([id])), [id], 'a member left out is removed');
    assert.deepEqual(memberIds(await okta('GET', `/Groups/${gid}`)), [id]);
    assert.equal((await okta('PUT', `/Groups/${randomUUID()}`, { schemas: [GROUP], displayName: 'Nobody' })).status, 404);
    assert.equal((await okta('GET', `/Groups?startIndex=1&count=100`)).body.totalResults, 1);
    assert.equal((await okta('DELETE', `/Groups/${gid}`)).status, 204);
    assert.deepEqual((await server.request('GET', `/v1/orgs/${org.orgId}/groups`, { key: org.key })).body.items, []);
  });

  test("Entra ID's sequence: filters on userName, externalId and the work email; capitalised ops and string booleans; delete", async () => {
    const org = await createOrg(server, { seats: 20 });
    const entra = scim((await enable(org)).token);
    const upn = `Test_User_${randomUUID().slice(0, 8)}@contoso.example`;
    const alias = `alias-${randomUUID().slice(0, 6)}`;
    assert.equal((await entra('GET', `/Users?filter=${encodeURIComponent(`userName eq "${upn}"`)}`)).body.totalResults, 0);
    const created = await entra('POST', '/Users', {
      schemas: [CORE, ENTERPRISE],
      externalId: alias,
      userName: upn,
      active: true,
      emails: [{ primary: true, type: 'work', value: upn }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
      [ENTERPRISE]: { department: 'Finance' },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    assert.deepEqual([created.body.name.formatted, created.body[ENTERPRISE].department], ['givenName familyName', 'Finance']);
    for (const filter of [`externalId eq "${alias}"`, `emails[type eq "work"].value eq "${upn}"`, `userName eq "${upn}" and externalId eq "${alias}"`]) {
      const res = await entra('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      assert.deepEqual(
        res.body.Resources.map((r: { id: string }) => r.id),
        [id],
        filter,
      );
    }
    assert.equal((await entra('GET', `/Users?filter=${encodeURIComponent(`userName eq "${upn}" and externalId eq "nope"`)}`)).body.totalResults, 0);

    const updated = await entra('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
        { op: 'Add', path: 'title', value: 'Analyst' },
        { op: 'Add', path: `${ENTERPRISE}:department`, value: 'Sales' },
        { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+44 7700 900000' },
      ],
    });
    assert.equal(updated.status, 200, updated.text);
    const user = (await ourUser(org, id)).body;
    assert.deepEqual([user.name, user.title, user.department, user.mobile], ['givenName updatedFamilyName', 'Analyst', 'Sales', '+44 7700 900000']);
    const renamedUpn = `Renamed_${randomUUID().slice(0, 8)}@contoso.example`;
    await entra('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'userName', value: renamedUpn }] });
    assert.equal((await ourUser(org, id)).body.email, renamedUpn);

    const disabled = await entra('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal(disabled.body.active, false);
    assert.equal((await ourUser(org, id)).body.status, 'suspended');
    const suspendedList = await server.request('GET', `/v1/orgs/${org.orgId}/users?status=suspended`, { key: org.key });
    assert.deepEqual(
      suspendedList.body.items.map((u: { userId: string }) => u.userId),
      [id],
    );
    await entra('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'True' }] });
    assert.equal((await ourUser(org, id)).body.status, 'invited');

    // Groups as Entra sends them: created empty, looked up without members, members added and removed by value.
    const group = await entra('POST', '/Groups', {
      schemas: [GROUP],
      externalId: `grp-${alias}`,
      displayName: 'Finance Team',
      meta: { resourceType: 'Group' },
    });
    assert.equal(group.status, 201, group.text);
    const gid = group.body.id as string;
    const byName = await entra('GET', `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "Finance Team"')}`);
    assert.deepEqual([byName.body.Resources[0].id, byName.body.Resources[0].members], [gid, undefined]);
    await entra('PATCH', `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: id }] }] });
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/groups`, { key: org.key })).body.items[0].memberCount, 1);
    await entra('PATCH', `/Groups/${gid}`, { schemas: [PATCH_OP], Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: id }] }] });
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/groups`, { key: org.key })).body.items[0].memberCount, 0);

    // The user's own photo (uploaded through the photo route) goes with them, as through the API.
    const photo = await fetch(`${server.url}/v1/orgs/${org.orgId}/users/${id}/photo`, {
      method: 'POST',
      headers: { 'x-api-key': org.key, 'content-type': 'image/png' },
      body: new Uint8Array(png(120, 120)),
    });
    assert.equal(photo.status, 200);
    const photoUrl = `${server.url}/v1/images/${((await photo.json()) as { photoImageId: string }).photoImageId}`;
    assert.equal((await fetch(photoUrl)).status, 200);
    assert.equal((await entra('DELETE', `/Users/${id}`)).status, 204);
    assert.equal((await fetch(photoUrl)).status, 404, "the deleted user's photo is deleted");
    isScimError(await entra('GET', `/Users/${id}`), 404);
    assert.equal((await ourUser(org, id)).status, 404, 'soft-deleted');
    isScimError(await entra('DELETE', `/Users/${id}`), 404);
  });

  test('errors in SCIM shape: no token, a bad filter, a taken userName, a bad body, an unknown id, the owner kept', async () => {
    const org = await createOrg(server, { seats: 20 });
    const client = scim((await enable(org)).token);
    isScimError(await scim(`scim_${'x'.repeat(43)}`)('GET', '/Users'), 401);
    const bare = await server.request('GET', '/scim/v2/Users');
    isScimError(bare, 401);
    isScimError(await client('GET', `/Users?filter=${encodeURIComponent('userName co "a"')}`), 400, 'invalidFilter');
    isScimError(await client('GET', `/Users?filter=${encodeURIComponent('nickName eq "a"')}`), 400, 'invalidFilter');
    isScimError(await client('GET', `/Users?filter=${encodeURIComponent('userName eq')}`), 400, 'invalidFilter');
    const email = `dup-${randomUUID().slice(0, 8)}@example.test`;
    assert.equal((await client('POST', '/Users', { schemas: [CORE], userName: email })).status, 201);
    isScimError(await client('POST', '/Users', { schemas: [CORE], userName: email.toUpperCase() }), 409, 'uniqueness');
    isScimError(await client('POST', '/Users', { schemas: [CORE], userName: 'not an address' }), 400, 'invalidValue');
    isScimError(await client('POST', '/Users', { schemas: [CORE] }), 400, 'invalidValue');
    const badJson = await server.request('POST', '/scim/v2/Users', {
      token: (await enable(org)).token,
      rawBody: '{',
      headers: { 'content-type': 'application/scim+json' },
    });
    isScimError(badJson, 400, 'invalidSyntax');
    const fresh = scim((await server.request('POST', `/v1/orgs/${org.orgId}/integrations/scim`, { key: org.key })).body.token);
    isScimError(await fresh('GET', `/Users/${randomUUID()}`), 404);
    isScimError(await fresh('GET', '/Users/not-an-id'), 404);
    isScimError(
      await fresh('PATCH', `/Users/${org.ownerUserId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] }),
      400,
      'mutability',
    );
    isScimError(
      await fresh('PATCH', `/Users/${org.ownerUserId}`, { schemas: [PATCH_OP], Operations: [{ op: 'frobnicate', path: 'title' }] }),
      400,
      'invalidSyntax',
    );
    isScimError(await fresh('DELETE', `/Users/${org.ownerUserId}`), 400, 'mutability');
    isScimError(await fresh('GET', '/Nope'), 404);
    const config = await fresh('GET', '/ServiceProviderConfig');
    assert.deepEqual([config.body.patch.supported, config.body.bulk.supported, config.body.filter.supported], [true, false, true]);
    assert.deepEqual(
      (await fresh('GET', '/ResourceTypes')).body.Resources.map((r: { id: string }) => r.id),
      ['User', 'Group'],
    );
    assert.equal((await fresh('GET', `/Schemas/${CORE}`)).body.id, CORE);
  });

  test('past the seat cap a create is 402 in SCIM shape naming the cap and creates nothing; so is a reactivation', async () => {
    const org = await createOrg(server, { seats: 2 });
    const client = scim((await enable(org)).token);
    const first = await client('POST', '/Users', { schemas: [CORE], userName: `one-${randomUUID().slice(0, 8)}@example.test`, active: true });
    assert.equal(first.status, 201);
    const refused = await client('POST', '/Users', { schemas: [CORE], userName: `two-${randomUUID().slice(0, 8)}@example.test`, active: true });
    isScimError(refused, 402);
    assert.match(refused.body.detail, /All 2 seats/);
    assert.equal((await client('GET', '/Users')).body.totalResults, 2, 'nothing created');
    // A suspended user frees the seat; reactivating them once it is taken again is 402.
    await client('PATCH', `/Users/${first.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
    assert.equal((await client('POST', '/Users', { schemas: [CORE], userName: `three-${randomUUID().slice(0, 8)}@example.test` })).status, 201);
    isScimError(await client('PATCH', `/Users/${first.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'active', value: 'True' }] }), 402);
    assert.equal((await ourUser(org, first.body.id)).body.status, 'suspended');
  });

  test("a token sees only its org: other orgs' users and groups are unknown, and cannot be made members", async () => {
    const a = await createOrg(server, { seats: 20 });
    const b = await createOrg(server, { seats: 20 });
    const asA = scim((await enable(a)).token);
    const asB = scim((await enable(b)).token);
    const bUser = await createUser(server, b);
    const bGroup = (await asB('POST', '/Groups', { schemas: [GROUP], displayName: 'B team' })).body.id as string;
    isScimError(await asA('GET', `/Users/${bUser.userId}`), 404);
    isScimError(await asA('PATCH', `/Users/${bUser.userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] }), 404);
    isScimError(await asA('DELETE', `/Users/${bUser.userId}`), 404);
    isScimError(await asA('GET', `/Groups/${bGroup}`), 404);
    assert.ok(!(await asA('GET', '/Users?count=1000')).body.Resources.some((r: { id: string }) => r.id === bUser.userId));
    assert.equal((await asA('GET', `/Users?filter=${encodeURIComponent(`userName eq "${bUser.email}"`)}`)).body.totalResults, 0);
    // Nor is an id that is no UUID (it was a 500, in a create, an add and a removal alike).
    const aGroup = await asA('POST', '/Groups', { schemas: [GROUP], displayName: 'A team', members: [{ value: bUser.userId }, { value: 'nonexistent' }] });
    assert.deepEqual([aGroup.status, aGroup.body.members], [201, []], "another org's user is no member");
    for (const op of ['add', 'remove']) {
      const res = await asA('PATCH', `/Groups/${aGroup.body.id}`, { schemas: [PATCH_OP], Operations: [{ op, path: 'members', value: [{ value: 'zzz' }] }] });
      assert.ok(res.status < 300, `${op}: ${res.status} ${res.text}`);
    }
    // A startIndex past what a number holds exactly is a 400 (it was a 500 from the database).
    isScimError(await asA('GET', '/Users?startIndex=99999999999999999999'), 400, 'invalidValue');
    assert.equal((await ourUser(b, bUser.userId)).body.status, 'invited', 'untouched');
    // Nor does org A's admin see B's groups through /v1.
    assert.equal((await server.request('GET', `/v1/orgs/${b.orgId}/groups`, { key: a.key })).status, 403);
  });

  test('the token: shown once, stored hashed, replaced by a second POST, revoked by DELETE; GET tells the last request', async () => {
    const org = await createOrg(server);
    const none = await server.request('GET', `/v1/orgs/${org.orgId}/integrations/scim`, { key: org.key });
    assert.deepEqual(none.body, { enabled: false, baseUrl: `${server.deps.config.baseUrl}/scim/v2`, createdAt: null, lastRequestAt: null });
    const first = await enable(org);
    const row = await server.deps.database.db.selectFrom('scim_tokens').selectAll().where('org_id', '=', org.orgId).executeTakeFirstOrThrow();
    assert.ok(!row.token_hash.includes(first.token) && row.token_hash !== first.token, 'only a hash is kept');
    assert.equal((await scim(first.token)('GET', '/Users')).status, 200);
    const state = await server.request('GET', `/v1/orgs/${org.orgId}/integrations/scim`, { key: org.key });
    assert.equal(state.body.enabled, true);
    assert.ok(state.body.lastRequestAt, 'the last request is shown');
    assert.ok(!JSON.stringify(state.body).includes(first.token), 'never shown again');
    const second = await enable(org);
    isScimError(await scim(first.token)('GET', '/Users'), 401);
    assert.equal((await scim(second.token)('GET', '/Users')).status, 200);
    // Not an API key either.
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}/users`, { key: second.token })).status, 401);
    assert.equal((await server.request('DELETE', `/v1/orgs/${org.orgId}/integrations/scim`, { key: org.key })).status, 204);
    isScimError(await scim(second.token)('GET', '/Users'), 401);
    assert.equal((await server.request('DELETE', `/v1/orgs/${org.orgId}/integrations/scim`, { key: org.key })).status, 404);
    const audit = await server.request('GET', `/v1/orgs/${org.orgId}/audit?limit=50`, { key: org.key });
    assert.ok(['scim.enable', 'scim.revoke'].every((a) => audit.body.items.some((e: { action: string }) => e.action === a)));
  });

  test('with SCIM on, a directory sync skips the users SCIM created (reason scim); revoked, the sync may adopt them', async () => {
    const org = await createOrg(server, { seats: 20 });
    const client = scim((await enable(org)).token);
    const email = `shared-${randomUUID().slice(0, 8)}@example.test`;
    const id = (await client('POST', '/Users', { schemas: [CORE], userName: email, title: 'From Okta' })).body.id as string;
    const entry = { externalId: 'g-1', email, name: 'From Google', title: 'From Google', department: '', phone: '', mobile: '', active: true };
    const apply = () => server.deps.directory.apply({ orgId: org.orgId, source: 'google', directory: [entry], dryRun: false, correlationId: 'test' });
    const run = await apply();
    assert.deepEqual(run.changes, [{ action: 'skip', userId: id, email, reason: 'scim' }]);
    assert.equal((await ourUser(org, id)).body.title, 'From Okta', 'SCIM keeps its user');
    assert.equal((await server.request('DELETE', `/v1/orgs/${org.orgId}/integrations/scim`, { key: org.key })).status, 204);
    const adopted = await apply();
    assert.deepEqual(
      adopted.changes.map((c) => [c.action, c.userId]),
      [['update', id]],
    );
    assert.equal((await ourUser(org, id)).body.title, 'From Google');
  });

  test("SCIM requests do not count against the org's quota; past the org's SCIM bucket a 429 in SCIM's shape with Retry-After", async () => {
    const org = await createOrg(server, { seats: 20 });
    const { token } = await enable(org);
    const used = async () => (await server.deps.quota.use(org.orgId)).used;
    const before = await used();
    for (let i = 0; i < 5; i++) assert.equal((await scim(token)('GET', '/Users')).status, 200);
    assert.equal((await server.request('GET', `/v1/orgs/${org.orgId}`, { key: org.key })).status, 200);
    assert.equal((await used()) - before, 1, 'the API-key request counted, none of the SCIM ones');

    // The same routes and service with a bucket of two and a stopped clock: the third is refused.
    const app = Fastify();
    await app.register(scimRoutes({ scim: server.deps.scim, limiter: new MemoryRateLimiter({ rate: 1, burst: 2 }, () => 0), retryAfterS: 7 }), {
      prefix: SCIM_PREFIX,
    });
    const get = () => app.inject({ method: 'GET', url: '/scim/v2/Users', headers: { authorization: `Bearer ${token}` } });
    assert.deepEqual([(await get()).statusCode, (await get()).statusCode], [200, 200]);
    const refused = await get();
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['retry-after'], '7');
    assert.match(String(refused.headers['content-type']), /^application\/scim\+json/);
    assert.deepEqual(Object.keys(refused.json()).sort(), ['detail', 'schemas', 'status']);
    assert.equal(refused.json().status, '429');
    await app.close();
  });
});
