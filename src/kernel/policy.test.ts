import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authorize, createUser, deleteUser, updateUser, type Action } from './policy.ts';
import type { Principal } from './principal.ts';

const ORG = 'org-a';
const member: Principal = { kind: 'user', userId: 'm', orgId: ORG, role: 'member' };
const admin: Principal = { kind: 'user', userId: 'a', orgId: ORG, role: 'admin' };
const owner: Principal = { kind: 'user', userId: 'o', orgId: ORG, role: 'owner' };
const key: Principal = { kind: 'apiKey', keyId: 'k', orgId: ORG };
const staff: Principal = { kind: 'staff', userId: 's' };

describe('authorize', () => {
  test('another org is refused for everyone but staff', () => {
    for (const p of [member, admin, owner, key]) assert.equal(authorize(p, 'org-b', 'org.read').allowed, false);
    assert.deepEqual(authorize(staff, 'org-b', 'audit.read'), { allowed: true, role: 'super-admin' });
  });

  test('API keys act as admin', () => {
    assert.deepEqual(authorize(key, ORG, 'apiKey.manage'), { allowed: true, role: 'admin' });
  });

  test('members read; admins manage', () => {
    const adminOnly: Action[] = [
      'org.update',
      'user.create',
      'user.delete',
      'template.write',
      'rule.read',
      'campaign.read',
      'opens.read',
      'apiKey.manage',
      'audit.read',
    ];
    const anyone: Action[] = ['org.read', 'user.read', 'template.read', 'render', 'billing.read', 'user.update'];
    for (const a of adminOnly) {
      assert.equal(authorize(member, ORG, a).allowed, false, a);
      assert.equal(authorize(admin, ORG, a).allowed, true, a);
    }
    for (const a of anyone) assert.equal(authorize(member, ORG, a).allowed, true, a);
  });
});

describe('updateUser', () => {
  const memberTarget = { id: 'm', role: 'member' as const };
  const ownerTarget = { id: 'o', role: 'owner' as const };
  test('a member edits only their own non-admin fields', () => {
    assert.equal(updateUser({ role: 'member', userId: 'm' }, memberTarget, { title: 'x' }).allowed, true);
    assert.equal(updateUser({ role: 'member', userId: 'm' }, { id: 'z', role: 'member' }, { title: 'x' }).allowed, false);
    assert.deepEqual(updateUser({ role: 'member', userId: 'm' }, memberTarget, { role: 'admin' }), {
      allowed: false,
      reason: 'Only an admin may change role.',
      field: 'role',
    });
    assert.equal(updateUser({ role: 'member', userId: 'm' }, memberTarget, { email: 'a@b.c' }).allowed, false);
  });
  test('only an owner makes an owner or touches an owner’s role or email', () => {
    assert.equal(updateUser({ role: 'admin', userId: 'a' }, memberTarget, { role: 'owner' }).allowed, false);
    assert.equal(updateUser({ role: 'owner', userId: 'o' }, memberTarget, { role: 'owner' }).allowed, true);
    assert.equal(updateUser({ role: 'admin', userId: 'a' }, ownerTarget, { role: 'member' }).allowed, false);
    assert.equal(updateUser({ role: 'admin', userId: 'a' }, ownerTarget, { email: 'x@y.z' }).allowed, false);
    assert.equal(updateUser({ role: 'admin', userId: 'a' }, ownerTarget, { title: 'CEO' }).allowed, true);
  });
  test('the owner may not lower their own role', () => {
    const d = updateUser({ role: 'owner', userId: 'o' }, ownerTarget, { role: 'admin' });
    assert.equal(d.allowed, false);
    assert.equal(updateUser({ role: 'owner', userId: 'o' }, ownerTarget, { role: 'owner', title: 'x' }).allowed, true);
    assert.equal(updateUser({ role: 'owner', userId: 'o2' }, ownerTarget, { role: 'admin' }).allowed, true, 'another owner may');
  });
});

describe('createUser and deleteUser', () => {
  test('admins create members and admins; only owners create owners', () => {
    assert.equal(createUser({ role: 'member' }, 'member').allowed, false);
    assert.equal(createUser({ role: 'admin' }, 'admin').allowed, true);
    assert.equal(createUser({ role: 'admin' }, 'owner').allowed, false);
    assert.equal(createUser({ role: 'owner' }, 'owner').allowed, true);
  });
  test('nobody deletes themselves as owner; admins do not delete owners', () => {
    assert.equal(deleteUser({ role: 'owner', userId: 'o' }, { id: 'o', role: 'owner' }).allowed, false);
    assert.equal(deleteUser({ role: 'admin', userId: 'a' }, { id: 'o', role: 'owner' }).allowed, false);
    assert.equal(deleteUser({ role: 'owner', userId: 'o2' }, { id: 'o', role: 'owner' }).allowed, true);
    assert.equal(deleteUser({ role: 'member', userId: 'm' }, { id: 'x', role: 'member' }).allowed, false);
  });
});
