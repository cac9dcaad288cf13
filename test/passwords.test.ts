// The service hashes passwords at the production scrypt cost unless a hasher is injected (the other
// tests inject a cheaper one, test/helpers/passwords.ts), and hashes of either cost verify under both.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, userInput, type TestOrg } from './helpers/fixtures.ts';
import { testPasswords } from './helpers/passwords.ts';
import { accountsRepo } from '../src/store/repositories/accounts.ts';
import { scryptHasher } from '../src/lib/passwords.ts';

describe('password hashing cost', () => {
  let server: TestServer;
  let org: TestOrg;
  before(async () => {
    // `passwords: undefined`: no hasher injected, the service's own default.
    server = await startServer({}, { passwords: undefined });
    org = await createOrg(server);
  });
  after(() => server?.close());

  test('by default a password is stored as scrypt with N = 32768, r = 8, p = 1, and signs in', async () => {
    const body = userInput({ temporaryPassword: 'a temporary password' });
    const res = await server.request('POST', `/v1/orgs/${org.orgId}/users`, { key: org.key, body });
    assert.equal(res.status, 201, res.text);
    const account = await accountsRepo.byId(server.deps.database.db, res.body.userId);
    assert.match(account?.passwordHash ?? '', /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    assert.equal((await server.deps.signIn.password('user', body.email, 'a temporary password'))?.id, res.body.userId);
    assert.equal(await server.deps.signIn.password('user', body.email, 'not the password!'), undefined);
  });

  test('a hash of the cheaper test cost verifies under the production hasher, and the other way round', async () => {
    const cheap = await testPasswords.hash('a long test password');
    assert.match(cheap, /^scrypt\$1024\$8\$1\$/);
    assert.equal(await scryptHasher.verify('a long test password', cheap), true);
    assert.equal(await scryptHasher.verify('a wrong password!!', cheap), false);
    const full = await scryptHasher.hash('a long test password');
    assert.equal(await testPasswords.verify('a long test password', full), true);
  });
});
