import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createTemplate, createUser, userWithPassword, type TestOrg } from './helpers/fixtures.ts';
import { oidcClient, signIn } from './helpers/browser.ts';

// Assignment rules (DECISIONS wave 3, "Rules") over HTTP: the list and its ETag, precedence, every
// condition, reply templates, and the paths that follow them (signature, add-in, render).
describe('rules', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const as = (org: TestOrg) => (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    server.request(method, `/v1/orgs/${org.orgId}${path}`, { key: org.key, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
  const template = async (org: TestOrg, name: string) =>
    (await createTemplate(server, org, { name, html: `<p>${name}: {{ user.name }}</p>`, text: name })).templateId;
  const signatureOf = async (org: TestOrg, userId: string, compose = 'new') => {
    const res = await as(org)('GET', `/users/${userId}/signature?compose=${compose}`);
    assert.equal(res.status, 200, res.text);
    return res.body as { html: string; templateId: string; ruleId: string | null };
  };

  test('GET answers the list with an ETag; PUT replaces it whole, keeps sent ruleIds, and a stale If-Match is 412', async () => {
    const org = await createOrg(server);
    const api = as(org);
    const empty = await api('GET', '/rules');
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body, []);
    const etag0 = empty.headers.get('etag') as string;
    const t = await template(org, 'Sales');
    const put = await api('PUT', '/rules', [{ name: 'Sales', when: { departments: ['Sales'] }, templateId: t }], { 'if-match': etag0 });
    assert.equal(put.status, 200, put.text);
    const ruleId = put.body[0].ruleId as string;
    assert.match(ruleId, /^[0-9a-f-]{36}$/);
    const etag1 = put.headers.get('etag') as string;
    assert.notEqual(etag1, etag0);
    const read = await api('GET', '/rules');
    assert.deepEqual(read.body, [{ ruleId, name: 'Sales', when: { departments: ['Sales'] }, templateId: t }]);
    assert.equal(read.headers.get('etag'), etag1);

    const stale = await api('PUT', '/rules', [], { 'if-match': etag0 });
    assert.equal(stale.status, 412, stale.text);
    assert.equal(stale.body.error.code, 'PRECONDITION_FAILED');
    assert.equal((await api('GET', '/rules')).body.length, 1, 'a refused PUT changes nothing');

    const kept = await api('PUT', '/rules', [
      { ruleId, name: 'Sales team', when: { departments: ['Sales'] }, templateId: t },
      { name: 'All', when: {}, templateId: t },
    ]);
    assert.equal(kept.status, 200, 'without If-Match the last write wins');
    assert.equal(kept.body[0].ruleId, ruleId);
    assert.notEqual(kept.body[1].ruleId, ruleId);
  });

  test('bad input is 400 and changes nothing: an unknown template, a duplicate ruleId, an empty condition list, an unknown condition', async () => {
    const org = await createOrg(server);
    const other = await createOrg(server);
    const api = as(org);
    const t = await template(org, 'A');
    const foreign = await template(other, 'Theirs');
    const ruleId = randomUUID();
    const cases: [unknown, string][] = [
      [[{ name: 'x', when: {}, templateId: randomUUID() }], 'body.0.templateId'],
      [[{ name: 'x', when: {}, templateId: t, replyTemplateId: foreign }], 'body.0.replyTemplateId'],
      [
        [
          { ruleId, name: 'x', when: {}, templateId: t },
          { ruleId, name: 'y', when: {}, templateId: t },
        ],
        'body.1.ruleId',
      ],
      [[{ name: 'x', when: { departments: [] }, templateId: t }], 'body.0.when.departments'],
      [[{ name: 'x', when: { shoeSize: ['42'] }, templateId: t }], 'body.0.when'],
      // Each rule within its own limits, the list past 256 KB in all (one stored value: it held the event loop).
      [Array.from({ length: 10 }, (_, i) => ({ name: `r${i}`, when: { userIds: Array.from({ length: 1000 }, () => randomUUID()) }, templateId: t })), '256 KB'],
    ];
    for (const [body, field] of cases) {
      const res = await api('PUT', '/rules', body);
      assert.equal(res.status, 400, `${field}: ${res.text}`);
      assert.ok(JSON.stringify(res.body.error).includes(field), `${field} named: ${res.text}`);
    }
    assert.deepEqual((await api('GET', '/rules')).body, []);
  });

  test("a ruleId sent back must be one of the org's current rules (400 naming body.N.ruleId, nothing changed); new rules leave it out", async () => {
    const org = await createOrg(server);
    const other = await createOrg(server);
    const api = as(org);
    const t = await template(org, 'Mine');
    const theirs = await as(other)('PUT', '/rules', [{ name: 'Theirs', when: {}, templateId: await template(other, 'Theirs') }]);
    assert.equal(theirs.status, 200, theirs.text);
    const saved = await api('PUT', '/rules', [
      { name: 'Keep', when: { departments: ['Sales'] }, templateId: t },
      { name: 'Drop', when: {}, templateId: t },
    ]);
    assert.equal(saved.status, 200, saved.text);
    const [keep, drop] = saved.body.map((r: { ruleId: string }) => r.ruleId) as [string, string];
    assert.equal(
      (await api('PUT', '/rules', [{ ruleId: keep.toUpperCase(), name: 'Keep', when: {}, templateId: t }])).status,
      200,
      'a current id, in any letter case',
    );
    const before = await api('GET', '/rules');
    for (const [what, ruleId] of [
      ['one never issued', randomUUID()],
      ["another org's", theirs.body[0].ruleId as string],
      ['one this org no longer has', drop],
    ] as const) {
      const res = await api('PUT', '/rules', [
        { ruleId: keep, name: 'Keep', when: {}, templateId: t },
        { ruleId, name: 'Sneaky', when: {}, templateId: t },
      ]);
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      assert.equal(res.body.error.code, 'BAD_REQUEST');
      assert.equal(res.body.error.details.field, 'body.1.ruleId', what);
    }
    const after = await api('GET', '/rules');
    assert.deepEqual(after.body, before.body, 'the refusals changed nothing');
    assert.equal(after.headers.get('etag'), before.headers.get('etag'));
    const fresh = await api('PUT', '/rules', [
      { ruleId: keep, name: 'Keep', when: {}, templateId: t },
      { name: 'New', when: {}, templateId: t },
    ]);
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal(fresh.body[0].ruleId, keep);
    assert.ok(![keep, drop].includes(fresh.body[1].ruleId), 'a new rule gets a new id');
  });

  test('precedence and every condition, through the signature route; replies take the reply template; nobody matched gets the default', async () => {
    const org = await createOrg(server);
    const api = as(org);
    const defaultId = (await api('GET', '/templates')).body.items.find((x: { isDefault: boolean }) => x.isDefault).templateId as string;
    const [tSales, tSalesReply, tAdmins, tVip, tDomain, tAttr, tGroup] = await Promise.all(
      ['Sales', 'Sales reply', 'Admins', 'VIP', 'Partner domain', 'EMEA', 'Finance group'].map((n) => template(org, n)),
    );
    assert.equal((await api('PUT', '/fields', [{ key: 'region', label: 'Region', type: 'text', selfService: false }])).status, 200);
    const domain = `partner-${randomUUID().slice(0, 6)}.example`;
    const vip = await createUser(server, org, { department: 'Sales' });
    const sales = await createUser(server, org, { department: 'sales' });
    const salesAdmin = await createUser(server, org, { department: 'Sales', role: 'admin' });
    const engAdmin = await createUser(server, org, { department: 'Engineering', role: 'admin' });
    const partner = await createUser(server, org, { department: 'Legal', email: `p-${randomUUID().slice(0, 6)}@${domain}` });
    const emea = await createUser(server, org, { department: 'Legal', attributes: { region: 'EMEA' } });
    const finance = await createUser(server, org, { department: 'Legal' });
    const nobody = await createUser(server, org, { department: 'Legal', attributes: { region: 'APAC' } });

    // A SCIM group named as the rule names it, in another letter case.
    const scim = await api('POST', '/integrations/scim');
    assert.equal(scim.status, 201, scim.text);
    const group = await server.request('POST', '/scim/v2/Groups', {
      rawBody: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Finance Team', members: [{ value: finance.userId }] }),
      headers: { authorization: `Bearer ${scim.body.token}`, 'content-type': 'application/scim+json' },
    });
    assert.equal(group.status, 201, group.text);

    const put = await api('PUT', '/rules', [
      { name: 'VIP', when: { userIds: [vip.userId] }, templateId: tVip },
      { name: 'Sales admins', when: { departments: ['Sales'], roles: ['admin'] }, templateId: tAdmins },
      { name: 'Sales', when: { departments: ['SALES'] }, templateId: tSales, replyTemplateId: tSalesReply },
      { name: 'Partners', when: { emailDomains: [domain] }, templateId: tDomain },
      { name: 'EMEA', when: { attributes: { region: 'emea' } }, templateId: tAttr },
      { name: 'Finance', when: { groups: ['finance team'] }, templateId: tGroup },
    ]);
    assert.equal(put.status, 200, put.text);
    const ruleIds = Object.fromEntries((put.body as { name: string; ruleId: string }[]).map((r) => [r.name, r.ruleId]));

    const expect: [string, string, string, string | null, string][] = [
      ['userIds beats a later department rule', vip.userId, tVip, ruleIds.VIP, 'VIP:'],
      ['department and role both hold', salesAdmin.userId, tAdmins, ruleIds['Sales admins'], 'Admins:'],
      ['department, in any letter case', sales.userId, tSales, ruleIds.Sales, 'Sales:'],
      ['an admin of another department: no rule', engAdmin.userId, defaultId, null, ''],
      ['email domain', partner.userId, tDomain, ruleIds.Partners, 'Partner domain:'],
      ['attribute', emea.userId, tAttr, ruleIds.EMEA, 'EMEA:'],
      ['SCIM group by display name', finance.userId, tGroup, ruleIds.Finance, 'Finance group:'],
      ['none: the default', nobody.userId, defaultId, null, ''],
    ];
    for (const [what, userId, templateId, ruleId, shows] of expect) {
      const sig = await signatureOf(org, userId);
      assert.deepEqual([sig.templateId, sig.ruleId], [templateId, ruleId], what);
      if (shows) assert.ok(sig.html.includes(shows), `${what}: ${sig.html}`);
    }
    const reply = await signatureOf(org, sales.userId, 'reply');
    assert.deepEqual([reply.templateId, reply.ruleId], [tSalesReply, ruleIds.Sales]);
    assert.ok(reply.html.includes('Sales reply:'));
    const adminReply = await signatureOf(org, salesAdmin.userId, 'reply');
    assert.equal(adminReply.templateId, tAdmins, 'a rule without a reply template gives its template to replies');

    // The explicit template of POST …/render still wins.
    const explicit = await api('POST', `/render/${sales.userId}`, { templateId: tVip });
    assert.equal(explicit.status, 200, explicit.text);
    assert.equal(explicit.body.templateId, tVip);
    const byRule = await api('POST', `/render/${sales.userId}`);
    assert.equal(byRule.body.templateId, tSales, 'without one, render follows the rules');
  });

  test('renders follow changes at once: the rules, a user moving department, a group losing its member', async () => {
    const org = await createOrg(server);
    const api = as(org);
    const [tSales, tFinance] = await Promise.all([template(org, 'Sales'), template(org, 'Finance')]);
    const user = await createUser(server, org, { department: 'Sales' });
    assert.equal((await api('PUT', '/rules', [{ name: 'Sales', when: { departments: ['Sales'] }, templateId: tSales }])).status, 200);
    assert.equal((await signatureOf(org, user.userId)).templateId, tSales);

    const scim = (await api('POST', '/integrations/scim')).body.token as string;
    const scimReq = (method: string, path: string, body: unknown) =>
      server.request(method, `/scim/v2${path}`, {
        rawBody: JSON.stringify(body),
        headers: { authorization: `Bearer ${scim}`, 'content-type': 'application/scim+json' },
      });
    const group = await scimReq('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Finance',
      members: [{ value: user.userId }],
    });
    assert.equal(group.status, 201, group.text);
    assert.equal(
      (
        await api('PUT', '/rules', [
          { name: 'Finance', when: { groups: ['Finance'] }, templateId: tFinance },
          { name: 'Sales', when: { departments: ['Sales'] }, templateId: tSales },
        ])
      ).status,
      200,
    );
    assert.equal((await signatureOf(org, user.userId)).templateId, tFinance, 'the new rules apply at once');

    const removed = await scimReq('PATCH', `/Groups/${group.body.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'remove', path: `members[value eq "${user.userId}"]` }],
    });
    assert.equal(removed.status, 200, removed.text);
    assert.equal((await signatureOf(org, user.userId)).templateId, tSales, 'out of the group: the next rule');

    const moved = await api('PATCH', `/users/${user.userId}`, { version: (await api('GET', `/users/${user.userId}`)).body.version, department: 'Legal' });
    assert.equal(moved.status, 200, moved.text);
    const sig = await signatureOf(org, user.userId);
    assert.deepEqual([sig.ruleId], [null], 'out of Sales: the default');
  });

  test('the Outlook add-in follows the rules, with the reply template for replies and forwards', async () => {
    const org = await createOrg(server);
    const api = as(org);
    const [tNew, tReply] = await Promise.all([template(org, 'Long'), template(org, 'Short')]);
    const user = await createUser(server, org, { department: 'Sales' });
    assert.equal((await api('PUT', '/rules', [{ name: 'Sales', when: { departments: ['Sales'] }, templateId: tNew, replyTemplateId: tReply }])).status, 200);
    const { addinKey } = (await api('POST', '/integrations/outlook/rotate-key')).body as { addinKey: string };
    const addin = async (compose: string) => {
      const res = await server.request('GET', `/v1/addin/signature?email=${encodeURIComponent(user.email)}&compose=${compose}`, {
        headers: { 'x-addin-key': addinKey },
      });
      assert.equal(res.status, 200, res.text);
      return res.body.html as string;
    };
    assert.match(await addin('new'), /Long:/);
    assert.match(await addin('reply'), /Short:/);
    assert.match(await addin('forward'), /Short:/);
  });

  test("the rules are the admins': a member's ID token is 403 on GET; admin, owner and API key read them; another org's key is 403", async () => {
    const org = await createOrg(server);
    const t = await template(org, 'Secret plan');
    assert.equal((await as(org)('PUT', '/rules', [{ name: 'Board', when: { departments: ['Board'] }, templateId: t }])).status, 200);
    const { authUrl, appUrl, stage } = server.deps.config;
    const app = await oidcClient(authUrl, `app-client-${stage}`, appUrl);
    const token = async (role: 'member' | 'admin' | 'owner') => {
      const account = await userWithPassword(server, org, role);
      return (await signIn(app, { username: account.email, password: account.password })).tokens.id_token as string;
    };
    const path = `/v1/orgs/${org.orgId}/rules`;
    const member = await server.request('GET', path, { token: await token('member') });
    assert.equal(member.status, 403, member.text);
    assert.equal(member.body.error.code, 'FORBIDDEN');
    assert.doesNotMatch(member.text, /Board/, 'nothing of the rules in the refusal');
    for (const [who, cred] of [
      ['admin', { token: await token('admin') }],
      ['owner', { token: await token('owner') }],
      ['API key', { key: org.key }],
    ] as const) {
      const res = await server.request('GET', path, cred);
      assert.equal(res.status, 200, `${who}: ${res.text}`);
      assert.equal(res.body[0].name, 'Board');
    }
    const other = await createOrg(server);
    const foreign = await server.request('GET', path, { key: other.key });
    assert.equal(foreign.status, 403, foreign.text);
    assert.equal(foreign.body.error.code, 'FORBIDDEN');
  });
});
