import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupFilter, userFilter } from './filter.ts';
import { ScimError } from './errors.ts';

test('the filters Okta and Entra send become repository filters', () => {
  assert.deepEqual(userFilter('userName eq "ada@x.test"'), { userName: 'ada@x.test' });
  assert.deepEqual(userFilter('externalId eq "0a1b"'), { externalId: '0a1b' });
  assert.deepEqual(userFilter('emails[type eq "work"].value eq "ada@x.test"'), { email: 'ada@x.test' });
  assert.deepEqual(userFilter('userName eq "a@x.test" and externalId eq "e1"'), { userName: 'a@x.test', externalId: 'e1' });
  assert.deepEqual(userFilter('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "a@x.test"'), { userName: 'a@x.test' });
  assert.deepEqual(userFilter(undefined), {});
  assert.deepEqual(groupFilter('displayName eq "Sales"'), { displayName: 'Sales' });
});

test('what cannot match, matches nothing; what we cannot answer is invalidFilter', () => {
  assert.equal(userFilter('emails[type eq "home"].value eq "a@x.test"').none, true);
  assert.equal(userFilter('userName eq "a@x.test" and userName eq "b@x.test"').none, true);
  for (const bad of ['userName co "a"', 'userName eq "a" or userName eq "b"', 'nickName eq "a"', 'userName eq', 'not (userName eq "a")']) {
    assert.throws(
      () => userFilter(bad),
      (err: unknown) => err instanceof ScimError && err.scimType === 'invalidFilter',
      bad,
    );
  }
  assert.throws(() => groupFilter('members.value eq "x"'), ScimError);
});
