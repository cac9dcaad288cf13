// Each kind of write forgets what src/cache/namespaces.ts says it does, whichever service makes it.
// The embedded database keeps cached rows until they are forgotten, so a write that forgot
// nothing would be served stale for the life of the process: each case checks the cache entries
// and what a client then reads.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrgWithoutTemplates as createOrg, createTemplate, createUser, type TestOrg } from './helpers/fixtures.ts';
import { deliver, event, subscription } from './helpers/payments.ts';
import { hashKey } from '../src/api-keys/key-format.ts';
import { totpCode } from '../src/idp/totp.ts';
import type { Access } from '../src/kernel/policy.ts';
import { api, ok, refused } from './helpers/api.ts';

describe('caches: what a write must invalidate, through HTTP', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const caches = () => server.deps.caches;
  const orgPath = (org: TestOrg) => ({ params: { path: { orgId: org.orgId } } });
  const getOrg = async (org: TestOrg, caller: { key: string } = org) => ok(await api(server, caller).GET('/v1/orgs/{orgId}', orgPath(org)), 200);

  /** Reads that fill the org's, the user's and the template's entries, as clients make them. */
  async function warm(org: TestOrg, userId: string, templateId: string) {
    await getOrg(org);
    const rendered = ok(await render(org, userId, templateId), 200);
    // The accounts entry is what an ID token's use fills; reading it through the cache is the same.
    await caches().accounts.get(userId, async () => ({ orgId: org.orgId, role: 'member', kind: 'user' }));
    assert.ok(caches().orgs.has(org.orgId) && caches().accounts.has(userId) && caches().renderUsers.has(`${org.orgId}:${userId}`));
    assert.ok(caches().templates.has(`${org.orgId}:${templateId}`));
    return rendered;
  }

  /** What a user write must forget: the user's account state, its org (seat count), its renders' row. */
  function assertUserForgotten(orgId: string, userId: string) {
    assert.equal(caches().accounts.has(userId), false, 'the account state is forgotten');
    assert.equal(caches().orgs.has(orgId), false, 'the org (with its seat count) is forgotten');
    assert.equal(caches().renderUsers.has(`${orgId}:${userId}`), false, "the user's render row is forgotten");
  }

  function render(org: TestOrg, userId: string, templateId?: string) {
    return api(server, org).POST('/v1/orgs/{orgId}/render/{userId}', {
      params: { path: { orgId: org.orgId, userId } },
      body: templateId ? { templateId } : {},
    });
  }
  const renderedHtml = async (org: TestOrg, userId: string, templateId?: string) => ok(await render(org, userId, templateId), 200).html;
  const userPath = (org: TestOrg, userId: string) => ({ params: { path: { orgId: org.orgId, userId } } });

  describe('writes forget what the cache declaration says', () => {
    test('a user write through the users service: the user, its org, its renders', async () => {
      const org = await createOrg(server);
      const user = await createUser(server, org, { name: 'Before Name' });
      const template = await createTemplate(server, org);
      assert.match((await warm(org, user.userId, template.templateId)).html, /Before Name/);

      ok(
        await api(server, org).PATCH('/v1/orgs/{orgId}/users/{userId}', { ...userPath(org, user.userId), body: { version: user.version, name: 'After Name' } }),
        200,
      );
      assertUserForgotten(org.orgId, user.userId);
      assert.match(await renderedHtml(org, user.userId, template.templateId), /After Name/);

      // Creating and deleting users changes the org's seat count, which the cached org carries.
      const seats = (await getOrg(org)).seatsUsed;
      const other = await createUser(server, org);
      assert.equal((await getOrg(org)).seatsUsed, seats + 1);
      await warm(org, other.userId, template.templateId);
      ok(await api(server, org).DELETE('/v1/orgs/{orgId}/users/{userId}', userPath(org, other.userId)), 204);
      assertUserForgotten(org.orgId, other.userId);
      assert.equal((await getOrg(org)).seatsUsed, seats);
      refused(await render(org, other.userId, template.templateId), 404);
    });

    test("the user's own sign-in writes (TOTP on and off, a new password) forget the user too", async () => {
      const org = await createOrg(server);
      const user = await createUser(server, org);
      const template = await createTemplate(server, org);
      const signIn = server.deps.signIn;

      // Through the sign-in pages' steps (which commit their own writes).
      await warm(org, user.userId, template.templateId);
      const enrolment = await signIn.enrolment(user.userId, { restart: true });
      assert.ok(enrolment);
      assert.ok(await signIn.confirmEnrolment(user.userId, totpCode(enrolment.secret)));
      assertUserForgotten(org.orgId, user.userId);

      await warm(org, user.userId, template.templateId);
      const changed = await signIn.changePassword(user.userId, 'a brand new long password');
      assert.equal(typeof changed, 'object', String(changed));
      assertUserForgotten(org.orgId, user.userId);

      // Through the API's MFA service (which audits in the same transaction, then forgets).
      await warm(org, user.userId, template.templateId);
      const self: Access = {
        orgId: org.orgId,
        principal: { kind: 'user', userId: user.userId, orgId: org.orgId, role: 'member' },
        role: 'member',
        userId: user.userId,
      };
      const ctx = { orgId: org.orgId, principal: self.principal, correlationId: 'caches-test' };
      await server.deps.mfa.disable(self, ctx, user.userId);
      assertUserForgotten(org.orgId, user.userId);
      const read = ok(await api(server, org).GET('/v1/orgs/{orgId}/users/{userId}', userPath(org, user.userId)));
      assert.equal(read.mfaEnabled, false);

      await warm(org, user.userId, template.templateId);
      const started = await server.deps.mfa.start(self, user.userId);
      await server.deps.mfa.confirm(self, ctx, user.userId, totpCode(started.secret));
      assertUserForgotten(org.orgId, user.userId);
    });

    test('a template write: the template and the org default, so renders use the new text', async () => {
      const org = await createOrg(server);
      const user = await createUser(server, org);
      const template = await createTemplate(server, org, { html: '<p>first {{ user.name }}</p>' });
      await warm(org, user.userId, template.templateId);
      assert.match(await renderedHtml(org, user.userId), /first/, 'the default template, now cached');
      assert.ok(caches().defaultTemplates.has(org.orgId));

      ok(
        await api(server, org).PATCH('/v1/orgs/{orgId}/templates/{templateId}', {
          params: { path: { orgId: org.orgId, templateId: template.templateId } },
          body: { version: template.version, html: '<p>second {{ user.name }}</p>' },
        }),
        200,
      );
      assert.equal(caches().templates.has(`${org.orgId}:${template.templateId}`), false);
      assert.equal(caches().defaultTemplates.has(org.orgId), false);
      assert.match(await renderedHtml(org, user.userId), /second/);

      // A new default moves the org's default: renders without a templateId follow it.
      await createTemplate(server, org, { html: '<p>third {{ user.name }}</p>', isDefault: true });
      assert.match(await renderedHtml(org, user.userId), /third/);
    });

    test('an org write (its name; its billing state): the org, so renders show the new name', async () => {
      const org = await createOrg(server, { name: 'Old Org Name' });
      const user = await createUser(server, org);
      const template = await createTemplate(server, org, { html: '<p>{{ org.name }}</p>' });
      assert.match((await warm(org, user.userId, template.templateId)).html, /Old Org Name/);

      const current = await getOrg(org);
      ok(await api(server, org).PATCH('/v1/orgs/{orgId}', { ...orgPath(org), body: { version: current.version, name: 'New Org Name' } }), 200);
      assert.equal(caches().orgs.has(org.orgId), false);
      assert.match(await renderedHtml(org, user.userId, template.templateId), /New Org Name/);

      // Through the billing service: a subscription event changes the org's seats.
      await getOrg(org);
      assert.ok(caches().orgs.has(org.orgId));
      const delivered = await deliver(server, event('customer.subscription.updated', subscription(org.orgId, { quantity: 17 })));
      assert.equal(delivered.status, 200, delivered.text);
      assert.equal(caches().orgs.has(org.orgId), false);
      assert.equal((await getOrg(org)).seats, 17);
    });

    test('a key revocation: the key, so its next use is refused', async () => {
      const org = await createOrg(server);
      const second = ok(await api(server, org).POST('/v1/orgs/{orgId}/api-keys', { ...orgPath(org), body: { name: 'second' } }), 201);
      await getOrg(org, second);
      assert.ok(caches().apiKeys.has(hashKey(second.key)));

      ok(await api(server, org).DELETE('/v1/orgs/{orgId}/api-keys/{keyId}', { params: { path: { orgId: org.orgId, keyId: second.keyId } } }), 200);
      assert.equal(caches().apiKeys.has(hashKey(second.key)), false);
      refused(await api(server, second).GET('/v1/orgs/{orgId}', orgPath(org)), 401);
    });
  });
});
