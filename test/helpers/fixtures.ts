// Test factories: each test makes its own org, so tests never share tenant data (and run the same
// on a shared PostgreSQL database).
import { randomUUID } from 'node:crypto';
import type { TestServer } from './server.ts';
import { api } from './api.ts';
import { png } from './images.ts';

export interface TestOrg {
  orgId: string;
  ownerUserId: string;
  key: string;
  keyId: string;
}

export async function createOrg(server: TestServer, overrides: { name?: string; seats?: number; plan?: string } = {}): Promise<TestOrg> {
  const created = await server.deps.orgs.create({
    name: overrides.name ?? `Org ${randomUUID().slice(0, 8)}`,
    seats: overrides.seats ?? 50,
    plan: overrides.plan ?? 'trial',
    ownerEmail: `owner-${randomUUID().slice(0, 8)}@example.test`,
    correlationId: 'test-fixture',
  });
  return { orgId: created.orgId, ownerUserId: created.ownerUserId, key: created.apiKey.key, keyId: created.apiKey.keyId };
}

/**
 * An org whose starter template an admin deleted (through the API): for the tests of what happens
 * before an org has templates of its own (the first becomes the default, renders without one).
 */
export async function createOrgWithoutTemplates(server: TestServer, overrides: { name?: string; seats?: number; plan?: string } = {}): Promise<TestOrg> {
  const org = await createOrg(server, overrides);
  const list = await server.request('GET', `/v1/orgs/${org.orgId}/templates`, { key: org.key });
  for (const t of list.body.items as { templateId: string }[]) {
    const res = await server.request('DELETE', `/v1/orgs/${org.orgId}/templates/${t.templateId}`, { key: org.key });
    if (res.status !== 204) throw new Error(`createOrgWithoutTemplates: ${res.status} ${res.text}`);
  }
  return org;
}

export function userInput(overrides: Record<string, unknown> = {}) {
  return { email: `user-${randomUUID().slice(0, 8)}@example.test`, name: 'Ada Lovelace', title: 'Engineer', ...overrides };
}

export async function createUser(server: TestServer, org: TestOrg, overrides: Record<string, unknown> = {}) {
  const res = await api(server, org).POST('/v1/orgs/{orgId}/users', { params: { path: { orgId: org.orgId } }, body: userInput(overrides) });
  if (res.response.status !== 201 || !res.data) throw new Error(`createUser: ${res.response.status} ${JSON.stringify(res.error)}`);
  return res.data;
}

/** A PNG of the given size uploaded to the org's images; its imageId. */
export async function uploadPng(server: TestServer, org: TestOrg, width: number, height: number): Promise<string> {
  const res = await fetch(`${server.url}/v1/orgs/${org.orgId}/images`, {
    method: 'POST',
    headers: { 'x-api-key': org.key, 'content-type': 'image/png' },
    body: new Uint8Array(png(width, height)),
  });
  if (res.status !== 201) throw new Error(`image upload: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { imageId: string }).imageId;
}

export async function createTemplate(server: TestServer, org: TestOrg, overrides: Record<string, unknown> = {}) {
  const res = await api(server, org).POST('/v1/orgs/{orgId}/templates', {
    params: { path: { orgId: org.orgId } },
    body: { name: 'Standard', html: '<p>{{ user.name }}</p>', text: '{{ user.name }}', ...overrides },
  });
  if (res.response.status !== 201 || !res.data) throw new Error(`createTemplate: ${res.response.status} ${JSON.stringify(res.error)}`);
  return res.data;
}

/** A user of the org with a password they chose (no change required) and the given role. */
export async function userWithPassword(server: TestServer, org: TestOrg, role: 'member' | 'admin' | 'owner', password = 'a long test password') {
  const { accountsRepo } = await import('../../src/store/repositories/accounts.ts');
  const db = server.deps.database.db;
  let userId: string;
  if (role === 'owner') {
    userId = org.ownerUserId;
  } else {
    userId = (await createUser(server, org, { role })).userId;
  }
  const account = await accountsRepo.byId(db, userId);
  if (!account) throw new Error('no account');
  await accountsRepo.setPassword(db, account, await server.deps.passwords.hash(password), false);
  return { userId, email: account.email, password };
}

export async function staffAccount(server: TestServer, password = 'staff test password') {
  const { accountsRepo } = await import('../../src/store/repositories/accounts.ts');
  const id = randomUUID();
  const email = `staff-${id.slice(0, 8)}@operator.test`;
  await accountsRepo.insertStaff(server.deps.database.db, { id, email, password_hash: await server.deps.passwords.hash(password) });
  return { userId: id, email, password };
}

/**
 * Puts the org past its grace period (payment failed, grace over) straight in the database, and
 * tells the caches, so the next request sees it: for the tests of what the billing gate refuses.
 */
export async function lapseOrg(server: TestServer, orgId: string) {
  await server.deps.database.db
    .updateTable('orgs')
    .set({ subscription_status: 'past_due', grace_period_ends_at: new Date(Date.now() - 60_000) })
    .where('id', '=', orgId)
    .execute();
  server.deps.caches.invalidate.orgChanged(orgId);
}
