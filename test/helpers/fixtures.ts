// Test factories: each test makes its own org, so tests never share tenant data (and run the same
// on a shared PostgreSQL database).
import { randomUUID } from 'node:crypto';
import type { TestServer } from './server.ts';

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

export function userInput(overrides: Record<string, unknown> = {}) {
  return { email: `user-${randomUUID().slice(0, 8)}@example.test`, name: 'Ada Lovelace', title: 'Engineer', ...overrides };
}

export async function createUser(server: TestServer, org: TestOrg, overrides: Record<string, unknown> = {}) {
  const res = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body: userInput(overrides) });
  if (res.status !== 201) throw new Error(`createUser: ${res.status} ${res.text}`);
  return res.body as { userId: string; version: number; email: string; role: string };
}

export async function createTemplate(server: TestServer, org: TestOrg, overrides: Record<string, unknown> = {}) {
  const res = await server.request('POST', `/v1/orgs/${org.orgId}/templates`, {
    key: org.key,
    body: { name: 'Standard', html: '<p>{{ user.name }}</p>', text: '{{ user.name }}', ...overrides },
  });
  if (res.status !== 201) throw new Error(`createTemplate: ${res.status} ${res.text}`);
  return res.body as { templateId: string; version: number; isDefault: boolean };
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
