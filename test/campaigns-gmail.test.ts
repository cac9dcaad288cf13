import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestServer } from './helpers/server.ts';
import { createOrgWithoutTemplates as createOrg, createTemplate, uploadPng } from './helpers/fixtures.ts';
import type { FakeGoogle } from './helpers/fake-google.ts';
import { connect, googleSuite, jobsSettled, workspace } from './helpers/google-setup.ts';
import { waitFor } from './helpers/wait.ts';
import { googleRepo } from '../src/store/repositories/google.ts';
import { enableScim, SCIM } from './helpers/scim.ts';

// DECISIONS wave 3, "Campaigns": when a campaign starts or ends, the Gmail signatures it touches
// are pushed again without anyone asking (the scheduler's push follows the clock, here a manual one).
describe('campaigns and Gmail', () => {
  const HOUR = 3_600_000;
  // Real time plus what the test adds: the job queue's due times keep moving (a clock standing
  // still would never reach a job queued a moment later), and the test jumps to a start or an end.
  let offset = 0;
  const clock = {
    now: () => new Date(Date.now() + offset),
    advance: (ms: number) => {
      offset += ms;
    },
  };
  let fake: FakeGoogle;
  let server: TestServer;
  googleSuite((google) => ({ fake, server } = google), { clock: clock.now });

  test("a campaign's start adds its banner to its audience's Gmail signatures, and its end takes it away", async () => {
    const org = await createOrg(server, { seats: 50 });
    await createTemplate(server, org, { html: '<p>{{ user.name }}</p>{{ campaign.banner | raw }}' });
    const ws = workspace(fake, 4);
    await connect(server, org, ws);
    const everyone = [ws.admin, ...ws.users];
    await waitFor(() => everyone.every((u) => u.signature?.startsWith('<p>')), 'the first push');
    const imageId = await uploadPng(server, org, 600, 100);
    const made = await server.request('POST', `/v1/orgs/${org.orgId}/campaigns`, {
      key: org.key,
      body: {
        name: 'Launch',
        startsAt: new Date(clock.now().getTime() + HOUR).toISOString(),
        endsAt: new Date(clock.now().getTime() + 2 * HOUR).toISOString(),
        audience: { departments: ['Sales'] },
        variants: [{ imageId, link: 'https://launch.example/', alt: 'Launch', weight: 1 }],
      },
    });
    assert.equal(made.status, 201, made.text);
    const sales = ws.users.filter((u) => u.organizations?.[0]?.department === 'Sales');
    const others = everyone.filter((u) => !sales.includes(u));
    assert.ok(sales.length > 0 && others.length > 0);

    clock.advance(HOUR);
    await waitFor(() => sales.every((u) => u.signature?.includes('alt="Launch"')), "the banner in the Sales users' Gmail", 60_000);
    assert.ok(
      others.every((u) => !u.signature?.includes('alt="Launch"')),
      "not in the others'",
    );

    clock.advance(HOUR);
    await waitFor(() => sales.every((u) => !u.signature?.includes('alt="Launch"')), 'the banner gone at the end', 60_000);
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');
  });

  // DECISIONS wave 3, "Rules": every path that renders for a user follows the rules, the push too.
  test("a change of the org's rules pushes the signatures it changes again", async () => {
    const org = await createOrg(server, { seats: 50 });
    await createTemplate(server, org, { html: '<p>{{ user.name }}</p>' });
    const salesTemplate = await createTemplate(server, org, { name: 'Sales', html: '<p>Sales: {{ user.name }}</p>', isDefault: false });
    const ws = workspace(fake, 4);
    await connect(server, org, ws);
    const everyone = [ws.admin, ...ws.users];
    await waitFor(() => everyone.every((u) => u.signature?.startsWith('<p>')), 'the first push');
    // Every change so far marked seen (the directory's sync writes the users after the first push,
    // which would push again by itself), and its push done: only the rules can start the next.
    while ((await googleRepo.claimChanged(server.deps.database.db, clock.now())).length > 0);
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'the pushes done');
    const put = await server.request('PUT', `/v1/orgs/${org.orgId}/rules`, {
      key: org.key,
      body: [{ name: 'Sales', when: { departments: ['Sales'] }, templateId: salesTemplate.templateId }],
    });
    assert.equal(put.status, 200, put.text);
    const sales = ws.users.filter((u) => u.organizations?.[0]?.department === 'Sales');
    assert.ok(sales.length > 0);
    await waitFor(() => sales.every((u) => u.signature?.startsWith('<p>Sales: ')), "the Sales template in the Sales users' Gmail", 60_000);
    assert.ok(
      everyone.filter((u) => !sales.includes(u)).every((u) => !u.signature?.startsWith('<p>Sales: ')),
      "not in the others'",
    );
  });

  test('a SCIM group a rule names, deleted: its members get the default template back in Gmail', async () => {
    const org = await createOrg(server, { seats: 50 });
    await createTemplate(server, org, { html: '<p>{{ user.name }}</p>' });
    const teamTemplate = await createTemplate(server, org, { name: 'Team', html: '<p>Team: {{ user.name }}</p>', isDefault: false });
    const ws = workspace(fake, 2);
    await connect(server, org, ws);
    const everyone = [ws.admin, ...ws.users];
    await waitFor(() => everyone.every((u) => u.signature?.startsWith('<p>')), 'the first push');
    const members = await server.request('GET', `/v1/orgs/${org.orgId}/users?limit=100`, { key: org.key });
    const member = members.body.items.find((u: { email: string }) => u.email === ws.users[0]!.primaryEmail);
    assert.ok(member, members.text);
    const { token } = await enableScim(server, org);
    const group = await server.request('POST', '/scim/v2/Groups', {
      token,
      body: { schemas: [SCIM.group], displayName: 'Launch team', members: [{ value: member.userId }] },
    });
    assert.equal(group.status, 201, group.text);
    const put = await server.request('PUT', `/v1/orgs/${org.orgId}/rules`, {
      key: org.key,
      body: [{ name: 'Team', when: { groups: ['Launch team'] }, templateId: teamTemplate.templateId }],
    });
    assert.equal(put.status, 200, put.text);
    await waitFor(() => ws.users[0]!.signature?.startsWith('<p>Team: '), "the team's template in its member's Gmail", 60_000);
    // Every change so far marked seen and its push done: only the deletion can start the next.
    while ((await googleRepo.claimChanged(server.deps.database.db, clock.now())).length > 0);
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'the pushes done');
    const deleted = await server.request('DELETE', `/scim/v2/Groups/${group.body.id}`, { token });
    assert.equal(deleted.status, 204, deleted.text);
    await waitFor(() => ws.users[0]!.signature?.startsWith('<p>User 1'), 'the default template back in Gmail', 60_000);
    assert.deepEqual(await jobsSettled(server, org.orgId), [], 'no job failed');
  });
});
