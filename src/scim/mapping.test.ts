import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENTERPRISE_SCHEMA, fromScimUser, toScimUser } from './mapping.ts';
import { applyUserPatch, parsePatch } from './patch.ts';
import { ScimError } from './errors.ts';
import type { UserRow } from '../store/schema.ts';

const row = {
  id: 'u1',
  email: 'ada@x.test',
  name: 'Ada King Lovelace',
  title: 'Engineer',
  department: 'R&D',
  phone: '+1 555',
  mobile: '',
  status: 'invited',
  directory_source: 'scim',
  directory_id: 'ext-1',
  version: 3,
  created_at: new Date(0),
  updated_at: new Date(0),
} as unknown as UserRow;

test('a user as SCIM reads it, and back unchanged', () => {
  const r = toScimUser(row, [], 'https://api.test/scim/v2');
  assert.deepEqual(
    [r.userName, r.name.givenName, r.name.familyName, r.active, r.externalId, r[ENTERPRISE_SCHEMA].department],
    ['ada@x.test', 'Ada King', 'Lovelace', true, 'ext-1', 'R&D'],
  );
  assert.deepEqual(r.phoneNumbers, [{ value: '+1 555', type: 'work' }]);
  assert.deepEqual(fromScimUser(r, r), {
    email: 'ada@x.test',
    name: 'Ada King Lovelace',
    title: 'Engineer',
    department: 'R&D',
    phone: '+1 555',
    mobile: '',
    active: true,
    externalId: 'ext-1',
  });
});

test('the name the client changed wins; string booleans; a userName that is no address gives way to the work email', () => {
  const before = toScimUser(row, [], 'https://api.test/scim/v2');
  const patched = applyUserPatch(
    before,
    parsePatch(
      {
        Operations: [
          { op: 'Replace', path: 'name.familyName', value: 'Byron' },
          { op: 'Replace', path: 'active', value: 'False' },
        ],
      },
      'User',
    ),
  );
  const input = fromScimUser(patched, before);
  assert.deepEqual([input.name, input.active], ['Ada King Byron', false]);
  assert.equal(fromScimUser({ userName: 'ada', emails: [{ type: 'work', value: 'ada@x.test' }] }).email, 'ada@x.test');
  assert.equal(fromScimUser({ userName: 'g@x.test', displayName: 'Grace', name: { formatted: 'G. Hopper' } }).name, 'Grace');
  assert.throws(() => fromScimUser({ userName: 'ada' }), ScimError);
  assert.throws(() => parsePatch({ Operations: [{ op: 'move', path: 'title' }] }, 'User'), ScimError);
});
