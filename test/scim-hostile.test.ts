// SCIM 2.0 under hostile or broken input (docs/scim.md, "PATCH" and "Limits"): what a reviewer sent
// black-box and what it did before. A PATCH path or key `__proto__` polluted Object.prototype and
// crashed the process; malformed operations were 500s; 100,000 members in one PATCH held the event
// loop 12 s; a SCIM token (an admin's) changed the owner's email; a bad URL answered our envelope;
// concurrent PATCHes of one group lost members. Through the real server, over HTTP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startServer, type TestServer, type TestResponse } from './helpers/server.ts';
import { enableScim, SCIM } from './helpers/scim.ts';
import { createOrg, type TestOrg } from './helpers/fixtures.ts';

const { user: CORE, enterprise: ENTERPRISE, group: GROUP, patchOp: PATCH_OP, error: ERROR } = SCIM;

describe('SCIM 2.0 under hostile input', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const enable = async (org: TestOrg) => (await enableScim(server, org)).token;
  /** A SCIM client of the org: a body is an object, or a string sent as it is (keys JSON.stringify would not write). */
  const client =
    (token: string) =>
    (method: string, path: string, body?: unknown): Promise<TestResponse> =>
      server.request(method, `/scim/v2${path}`, {
        token,
        ...(body === undefined
          ? {}
          : { rawBody: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/scim+json' } }),
      });
  const patchBody = (operations: unknown) =>
    `{"schemas":["${PATCH_OP}"],"Operations":${typeof operations === 'string' ? operations : JSON.stringify(operations)}}`;
  const isScimError = (res: TestResponse, status: number, scimTypes?: string[], what = '') => {
    assert.equal(res.status, status, `${what}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /^application\/scim\+json/, what);
    assert.deepEqual(res.body.schemas, [ERROR], what);
    assert.equal(res.body.status, String(status), what);
    assert.equal(typeof res.body.detail, 'string', what);
    if (scimTypes) assert.ok(scimTypes.includes(res.body.scimType), `${what}: scimType ${res.body.scimType}`);
  };
  const setup = async (seats = 50) => {
    const org = await createOrg(server, { seats });
    const scim = client(await enable(org));
    const user = await scim('POST', '/Users', {
      schemas: [CORE],
      userName: `u-${randomUUID().slice(0, 8)}@example.test`,
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      title: 'Engineer',
    });
    assert.equal(user.status, 201, user.text);
    const group = await scim('POST', '/Groups', { schemas: [GROUP], displayName: `G ${randomUUID().slice(0, 8)}`, members: [{ value: user.body.id }] });
    assert.equal(group.status, 201, group.text);
    return { org, scim, userId: user.body.id as string, groupId: group.body.id as string };
  };
  /** The resource as SCIM reads it, less what every write changes (meta). */
  const stateOf = async (scim: ReturnType<typeof client>, path: string) => {
    const { meta: _meta, ...rest } = (await scim('GET', path)).body;
    return rest;
  };

  test('a path or key __proto__, constructor or prototype is a 400 and pollutes nothing; the server answers after', async () => {
    const { scim, userId, groupId } = await setup();
    const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
    const userBefore = await stateOf(scim, `/Users/${userId}`);
    const groupBefore = await stateOf(scim, `/Groups/${groupId}`);
    const hostile = [
      '[{"op":"replace","path":"__proto__.polluted","value":"x"}]',
      '[{"op":"replace","path":"constructor.prototype.polluted","value":"x"}]',
      '[{"op":"add","path":"__proto__","value":{"polluted":"x"}}]',
      '[{"op":"add","path":"name.__proto__","value":{"polluted":"x"}}]',
      '[{"op":"replace","path":"emails[type eq \\"work\\"].__proto__","value":"x"}]',
      '[{"op":"replace","value":{"__proto__":{"polluted":"x"}}}]',
      '[{"op":"add","value":{"name":{"__proto__":{"polluted":"x"}}}}]',
      '[{"op":"add","value":{"__proto__.polluted":"x"}}]',
      '[{"op":"add","path":"name","value":{"constructor":{"prototype":{"polluted":"x"}}}}]',
      '[{"op":"add","path":"emails","value":[{"value":"a@example.test","__proto__":{"polluted":"x"}}]}]',
      '[{"op":"replace","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:__proto__","value":{"polluted":"x"}}]',
    ];
    for (const ops of hostile) {
      isScimError(await scim('PATCH', `/Users/${userId}`, patchBody(ops)), 400, ['invalidPath', 'invalidValue'], `user ${ops}`);
    }
    const hostileToGroups = [
      ...hostile.slice(0, 3),
      '[{"op":"add","path":"members","value":[{"value":"x","__proto__":{"polluted":"x"}}]}]',
      '[{"op":"replace","value":{"displayName":"x","constructor":{"prototype":{"polluted":"x"}}}}]',
      '[{"op":"replace","path":"displayName.__proto__","value":"x"}]',
    ];
    for (const ops of hostileToGroups) {
      isScimError(await scim('PATCH', `/Groups/${groupId}`, patchBody(ops)), 400, ['invalidPath', 'invalidValue'], `group ${ops}`);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeKeys, 'Object.prototype is as it was');
    // prom-client crashed the process a second after a pollution (on its next collection): the server still answers.
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal((await server.request('GET', '/metrics')).status < 500, true);
    assert.deepEqual(await stateOf(scim, `/Users/${userId}`), userBefore, 'the user is unchanged');
    assert.deepEqual(await stateOf(scim, `/Groups/${groupId}`), groupBefore, 'the group is unchanged');
  });

  test('malformed operations are 400s in SCIM shape (never a 500) and change nothing; forms the providers send still work', async () => {
    const { org, scim, userId, groupId } = await setup();
    const userBefore = await stateOf(scim, `/Users/${userId}`);
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const malformed: unknown[] = [
      [{ op: 'replace', path: 'name', value: null }],
      [{ op: 'replace', value: null }],
      [{ op: 'replace', path: 'name.givenName.foo', value: 'x' }],
      [{ op: 'add', path: 'title' }],
      [{ op: 'add', path: 'title', value: { a: 1 } }],
      [{ op: 'replace', path: 'name', value: [1] }],
      [{ op: 'replace', path: 'name', value: { givenName: { nested: true } } }],
      [{ op: 'replace', path: 'emails', value: 5 }],
      [{ op: 'replace', path: 'emails', value: [null] }],
      [{ op: 'replace', path: 'emails.value', value: 'a@example.test' }],
      [{ op: 'replace', path: 'emails[type eq "work"].value', value: {} }],
      [{ op: 'replace', path: 'emails[type eq', value: 'x' }],
      [{ op: 'replace', path: 'emails[type zz "work"].value', value: 'x' }],
      [{ op: 'replace', path: 'title[type eq "x"]', value: 'x' }],
      [{ op: 'replace', path: 'userName', value: null }],
      [{ op: 'remove' }],
      [{ op: 'remove', path: 'title', value: 'x' }],
      [{ op: 'replace', path: '', value: 'x' }],
      [{ op: 'replace', path: 'a b', value: 'x' }],
      [{ op: 'replace', path: 7, value: 'x' }],
      [{ op: 'replace', value: { 'not an attribute': 1 } }],
      `[{"op":"replace","path":"title","value":${deep}}]`,
      [null],
      [],
    ];
    for (const ops of malformed) {
      const res = await scim('PATCH', `/Users/${userId}`, patchBody(ops));
      isScimError(res, 400, undefined, `user ${typeof ops === 'string' ? ops.slice(0, 80) : JSON.stringify(ops)}`);
    }
    assert.deepEqual(await stateOf(scim, `/Users/${userId}`), userBefore, 'the user is unchanged');

    const groupBefore = await stateOf(scim, `/Groups/${groupId}`);
    for (const ops of [
      [{ op: 'add', path: 'members', value: [1] }],
      [{ op: 'add', path: 'members', value: null }],
      [{ op: 'add', path: 'members', value: [{ value: 7 }] }],
      [{ op: 'remove', path: 'members[display eq "x"]' }],
      [{ op: 'add', path: 'members[value eq "x"]', value: [{ value: 'x' }] }],
      [{ op: 'replace', path: 'members.value', value: 'x' }],
      [{ op: 'replace', path: 'displayName', value: null }],
      [{ op: 'replace', path: 'displayName', value: ['x'] }],
    ]) {
      isScimError(await scim('PATCH', `/Groups/${groupId}`, patchBody(ops)), 400, undefined, `group ${JSON.stringify(ops)}`);
    }
    assert.deepEqual(await stateOf(scim, `/Groups/${groupId}`), groupBefore, 'the group is unchanged');

    // What we do not keep is accepted and changes nothing (Entra's default mapping sends these).
    const accepted = await scim('PATCH', `/Users/${userId}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Add', path: 'preferredLanguage', value: 'en-GB' },
        { op: 'Add', path: 'addresses[type eq "work"].locality', value: 'London' },
        { op: 'Add', path: `${ENTERPRISE}:manager`, value: 'boss' },
        { op: 'Replace', value: { nickName: 'Ada', [ENTERPRISE]: { employeeNumber: '7', department: 'Maths' }, 'name.givenName': 'Augusta Ada' } },
        { op: 'Replace', path: 'name', value: { familyName: 'King' } },
      ],
    });
    assert.equal(accepted.status, 200, accepted.text);
    const user = (await server.request('GET', `/v1/orgs/${org.orgId}/users/${userId}`, { key: org.key })).body;
    assert.deepEqual([user.name, user.department, user.title], ['Augusta Ada King', 'Maths', 'Engineer']);
    assert.equal(accepted.body.preferredLanguage, undefined, 'not kept');
  });

  test('a group PATCH takes at most 1,000 member items (400 tooMany) and a SCIM body at most 1 MB (413), both refused at once', async () => {
    const { scim, userId, groupId } = await setup();
    const items = (n: number) => Array.from({ length: n }, () => ({ value: randomUUID() }));
    // The reviewer's request: 100,000 removals (4.9 MB) held the event loop 12 s on a group of 520.
    const hundredThousand = patchBody([{ op: 'Remove', path: 'members', value: items(100_000) }]);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    const refused = await scim('PATCH', `/Groups/${groupId}`, hundredThousand);
    const took = performance.now() - started;
    delay.disable();
    isScimError(refused, 413);
    // Refused for its size before it is parsed (the 413), so nothing of it runs on the event loop.
    // The delay is printed, not asserted: a bound would measure CI's load (speed is the benches').
    process.stdout.write(`# 100,000 member items refused in ${Math.round(took)} ms, the event loop held at most ${Math.round(delay.max / 1e6)} ms\n`);
    const tooMany = await scim('PATCH', `/Groups/${groupId}`, patchBody([{ op: 'Remove', path: 'members', value: items(1001) }]));
    isScimError(tooMany, 400, ['tooMany']);
    assert.match(tooMany.body.detail, /1000/);
    const split = patchBody([
      { op: 'add', path: 'members', value: items(600) },
      { op: 'remove', path: 'members', value: items(401) },
    ]);
    isScimError(await scim('PATCH', `/Groups/${groupId}`, split), 400, ['tooMany'], 'the cap is per request');
    // Attributes other than members: at most 100 operations and items (scim-patch compares items pairwise).
    const emails = Array.from({ length: 101 }, (_, i) => ({ op: 'add', path: 'emails', value: [{ value: `e${i}@example.test`, type: `t${i}` }] }));
    isScimError(await scim('PATCH', `/Users/${userId}`, patchBody(emails)), 400, ['tooMany'], 'attribute operations');

    const thousand = items(999);
    const added = await scim('PATCH', `/Groups/${groupId}`, patchBody([{ op: 'Add', path: 'members', value: [...thousand, { value: userId }] }]));
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(
      added.body.members.map((m: { value: string }) => m.value),
      [userId],
      'ids of no user of the org are no members',
    );
    const removed = await scim(
      'PATCH',
      `/Groups/${groupId}`,
      patchBody([{ op: 'Remove', path: 'members', value: [...thousand, { value: userId.toUpperCase() }] }]),
    );
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(removed.body.members, []);
  });

  test("a SCIM token cannot change the owner's email (userName, emails), by PATCH or PUT; other users' it can", async () => {
    const { org, scim, userId } = await setup();
    const owner = (await server.request('GET', `/v1/orgs/${org.orgId}/users/${org.ownerUserId}`, { key: org.key })).body;
    const taken = `attacker-${randomUUID().slice(0, 8)}@example.test`;
    for (const body of [
      { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: taken }] },
      { schemas: [PATCH_OP], Operations: [{ op: 'Replace', value: { userName: taken } }] },
    ]) {
      const res = await scim('PATCH', `/Users/${org.ownerUserId}`, body);
      isScimError(res, 400, ['mutability']);
      assert.match(res.body.detail, /owner/);
    }
    isScimError(await scim('PUT', `/Users/${org.ownerUserId}`, { schemas: [CORE], userName: taken, active: true }), 400, ['mutability']);
    isScimError(
      await scim('PUT', `/Users/${org.ownerUserId}`, { schemas: [CORE], userName: 'not-an-address', emails: [{ type: 'work', value: taken }], active: true }),
      400,
      ['mutability'],
    );
    const now = (await server.request('GET', `/v1/orgs/${org.orgId}/users/${org.ownerUserId}`, { key: org.key })).body;
    assert.equal(now.email, owner.email, "the owner's email is unchanged");
    // The owner's other fields, and other users' addresses, SCIM still changes.
    const titled = await scim('PATCH', `/Users/${org.ownerUserId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'title', value: 'CEO' }] });
    assert.equal(titled.status, 200, titled.text);
    const renamed = await scim('PATCH', `/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: taken }] });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.userName, taken);
  });

  test("every error under /scim/v2 is in SCIM's shape: a URL that cannot be decoded, unknown routes, the content type, the body's size", async () => {
    const org = await createOrg(server);
    const token = await enable(org);
    const scim = client(token);
    isScimError(await scim('GET', '/Users/%E0%A4%A'), 400, undefined, 'bad percent-encoding');
    isScimError(await scim('PATCH', '/Groups/%E0%A4%A', patchBody([{ op: 'add', path: 'title', value: 'x' }])), 400, undefined, 'bad percent-encoding');
    isScimError(await server.request('GET', '/scim/v2/%E0%A4%A'), 400, undefined, 'bad percent-encoding, no token');
    isScimError(await scim('GET', `/Users/${'a'.repeat(200)}`), 400, undefined, 'a segment too long');
    isScimError(await scim('GET', '/Nope'), 404, undefined, 'unknown route');
    isScimError(await scim('DELETE', '/Users'), 404, undefined, 'unknown method');
    const textBody = await server.request('POST', '/scim/v2/Users', { token, rawBody: '<user/>', headers: { 'content-type': 'application/xml' } });
    isScimError(textBody, 415, undefined, 'content type');
    isScimError(await scim('POST', '/Users', '{"schemas":'), 400, ['invalidSyntax'], 'bad JSON');
    const big = await scim('POST', '/Users', JSON.stringify({ schemas: [CORE], userName: 'x@example.test', title: 'x'.repeat(2 * 1024 * 1024) }));
    isScimError(big, 413, undefined, 'too large');
    assert.match(big.body.detail, /1048576 bytes/);
    // Outside /scim/v2, our envelope as before.
    const ours = await server.request('GET', `/v1/orgs/${org.orgId}/users/%E0%A4%A`, { key: org.key });
    assert.equal(ours.status, 400);
    assert.equal(ours.body.error.code, 'BAD_REQUEST');
  });

  test('concurrent PATCHes of one group each add their member: none is lost (the group is read under a row lock)', async () => {
    const { scim, groupId } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await scim('POST', '/Users', { schemas: [CORE], userName: `m${i}-${randomUUID().slice(0, 8)}@example.test` });
      assert.equal(res.status, 201, res.text);
      ids.push(res.body.id);
    }
    const answers = await Promise.all(
      ids.map((id) => scim('PATCH', `/Groups/${groupId}`, patchBody([{ op: 'add', path: 'members', value: [{ value: id }] }]))),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      ids.map(() => 200),
    );
    const members = (await scim('GET', `/Groups/${groupId}`)).body.members.map((m: { value: string }) => m.value);
    for (const id of ids) assert.ok(members.includes(id), `member ${id} kept`);
    assert.equal(members.length, ids.length + 1);
  });

  test("concurrent PATCHes of one user, each of its own attribute, all land: none writes back another's old value", async () => {
    const { scim, userId } = await setup();
    const sets: [string, unknown][] = [
      ['title', 'Chief Engineer'],
      ['name.givenName', 'Augusta'],
      ['name.familyName', 'King'],
      ['phoneNumbers[type eq "work"].value', '+44 20 7946 0000'],
      ['phoneNumbers[type eq "mobile"].value', '+44 7700 900000'],
      [`${ENTERPRISE}:department`, 'Analytical Engines'],
      ['externalId', 'ada-1815'],
    ];
    const answers = await Promise.all(sets.map(([path, value]) => scim('PATCH', `/Users/${userId}`, patchBody([{ op: 'replace', path, value }]))));
    for (const a of answers) assert.equal(a.status, 200, a.text);
    const user = (await scim('GET', `/Users/${userId}`)).body;
    assert.equal(user.title, 'Chief Engineer');
    assert.deepEqual([user.name.givenName, user.name.familyName], ['Augusta', 'King']);
    assert.deepEqual(Object.fromEntries(user.phoneNumbers.map((p: { type: string; value: string }) => [p.type, p.value])), {
      work: '+44 20 7946 0000',
      mobile: '+44 7700 900000',
    });
    assert.equal(user[ENTERPRISE].department, 'Analytical Engines');
    assert.equal(user.externalId, 'ada-1815');
  });
});
