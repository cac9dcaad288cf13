import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planDirectory, type DirectoryUser, type LocalUser } from './plan.ts';

const entry = (n: number, over: Partial<DirectoryUser> = {}): DirectoryUser => ({
  externalId: `g${n}`,
  email: `u${n}@corp.test`,
  name: `User ${n}`,
  title: '',
  department: '',
  phone: '',
  mobile: '',
  active: true,
  ...over,
});
const local = (n: number, over: Partial<LocalUser> = {}): LocalUser => ({
  id: `id${n}`,
  email: `u${n}@corp.test`,
  name: `User ${n}`,
  title: '',
  department: '',
  phone: '',
  mobile: '',
  role: 'member',
  directory_source: 'google',
  directory_id: `g${n}`,
  status: 'active',
  ...over,
});
const plan = (directory: DirectoryUser[], users: LocalUser[], opts: { taken?: string[]; seats?: number; complete?: boolean; scimEnabled?: boolean } = {}) =>
  planDirectory({
    source: 'google',
    directory,
    local: users,
    takenElsewhere: new Set(opts.taken ?? []),
    seats: { limit: opts.seats ?? 100, used: users.filter((u) => u.status !== 'suspended').length },
    ...(opts.complete === undefined ? {} : { complete: opts.complete }),
    ...(opts.scimEnabled === undefined ? {} : { scimEnabled: opts.scimEnabled }),
  });

test('creates new users, updates changed ones, leaves unchanged ones alone', () => {
  const p = plan([entry(1), entry(2, { title: 'CTO' }), entry(3)], [local(1), local(2)]);
  assert.deepEqual(p.counts, { created: 1, updated: 1, deleted: 0, skipped: 0 });
  const update = p.changes.find((c) => c.action === 'update');
  assert.deepEqual(update && update.action === 'update' && update.fields, ['title']);
});

test('suspended entries suspend their user; gone linked users are deleted; users it did not link are never touched', () => {
  const mine = [local(1), local(2)];
  const apiUser = local(9, { directory_source: null, directory_id: null, email: 'api@corp.test' });
  const p = plan([entry(1, { active: false })], [...mine, apiUser]);
  assert.deepEqual(p.counts, { created: 0, updated: 1, deleted: 1, skipped: 0 });
  assert.deepEqual(
    p.changes.map((c) => [c.action, 'userId' in c ? c.userId : null, c.action === 'update' ? c.fields : null]),
    [
      ['delete', 'id2', null],
      ['update', 'id1', ['status']],
    ],
  );
  // Already suspended: nothing to do.
  assert.deepEqual(plan([entry(1, { active: false }), entry(2)], [local(1, { status: 'suspended' }), local(2)]).counts, {
    created: 0,
    updated: 0,
    deleted: 0,
    skipped: 0,
  });
});

test('an active entry restores its suspended user, taking a seat; past the cap it is skipped seat_limit', () => {
  const users = [local(1, { status: 'suspended' }), local(2)];
  const p = plan([entry(1), entry(2)], users);
  assert.deepEqual(
    p.changes.map((c) => c.action === 'update' && [c.userId, c.fields]),
    [['id1', ['status']]],
  );
  const full = plan([entry(1), entry(2)], users, { seats: 1 });
  assert.deepEqual(
    full.changes.map((c) => c.action === 'skip' && [c.userId, c.reason]),
    [['id1', 'seat_limit']],
  );
});

test('while SCIM is enabled a sync skips the users SCIM linked (reason scim); once disabled it may adopt them', () => {
  const scimUser = local(7, { directory_source: 'scim', directory_id: 'okta-7' });
  const on = plan([entry(7, { title: 'New' })], [scimUser], { scimEnabled: true });
  assert.deepEqual(
    on.changes.map((c) => c.action === 'skip' && [c.userId, c.reason]),
    [['id7', 'scim']],
  );
  const off = plan([entry(7, { title: 'New' })], [scimUser], { scimEnabled: false });
  assert.ok(off.changes[0]!.action === 'update' && off.changes[0]!.fields.includes('directory'));
});

test('a user created through the API is adopted when the directory has their address (case-insensitive)', () => {
  const p = plan(
    [entry(5, { email: 'Ada@Corp.test', name: 'Ada' })],
    [local(9, { directory_source: null, directory_id: null, email: 'ada@corp.test', name: 'Ada' })],
  );
  assert.equal(p.counts.updated, 1);
  const c = p.changes[0]!;
  assert.ok(c.action === 'update' && c.userId === 'id9' && c.fields.includes('directory'));
});

test('the owner is never suspended or deleted by a sync', () => {
  const p = plan([entry(1, { active: false })], [local(1, { role: 'owner' })]);
  assert.deepEqual(p.counts, { created: 0, updated: 0, deleted: 0, skipped: 1 });
  assert.equal(p.changes[0]!.action === 'skip' && p.changes[0]!.reason, 'owner_kept');
});

test('past the seat cap new users are skipped with that reason; deletions free seats first', () => {
  const p = plan([entry(1, { active: false }), entry(2), entry(3), entry(4)], [local(1), local(9, { directory_source: null })], { seats: 3 });
  // 2 used, 1 suspended → 2 free seats for 3 new users.
  assert.deepEqual(p.counts, { created: 2, updated: 1, deleted: 0, skipped: 1 });
  assert.ok(p.changes.some((c) => c.action === 'skip' && c.reason === 'seat_limit' && c.email === 'u4@corp.test'));
});

test('an address another org uses is skipped; a duplicate entry and an address linked by another directory too', () => {
  const p = plan([entry(1), entry(2), entry(2, { externalId: 'g2b' }), entry(3)], [local(3, { directory_source: 'microsoft', directory_id: 'm3' })], {
    taken: ['u1@corp.test'],
  });
  const reasons = p.changes.filter((c) => c.action === 'skip').map((c) => (c.action === 'skip' ? c.reason : ''));
  assert.deepEqual(reasons.sort(), ['duplicate', 'email_in_other_org', 'other_directory']);
  assert.equal(p.counts.created, 1);
});

test('an address change in the directory follows the user by id; into an address in use it is skipped', () => {
  const renamed = plan([entry(1, { email: 'new1@corp.test' })], [local(1)]);
  assert.ok(renamed.changes[0]!.action === 'update' && renamed.changes[0]!.fields.includes('email'));
  const clash = plan([entry(1, { email: 'u2@corp.test' })], [local(1), local(2, { directory_source: null })]);
  assert.ok(clash.changes.some((c) => c.action === 'skip' && c.reason === 'email_in_use'));
});

test('users pushed a few at a time (not the complete directory): the others it linked stay; the same seat cap and reasons apply', () => {
  const mine = [local(1), local(2), local(3)];
  const pushed = plan([entry(2, { title: 'CTO' }), entry(3, { active: false }), entry(4), entry(5)], mine, { complete: false, seats: 3 });
  assert.deepEqual(pushed.counts, { created: 1, updated: 2, deleted: 0, skipped: 1 });
  assert.ok(!pushed.changes.some((c) => c.action === 'delete' && c.userId === 'id1'), 'a user not in the push stays');
  assert.deepEqual(
    pushed.changes.filter((c) => c.action === 'skip').map((c) => c.action === 'skip' && [c.email, c.reason]),
    [['u5@corp.test', 'seat_limit']],
  );
  // The same list as the whole directory deletes the user it no longer lists.
  assert.equal(plan([entry(2), entry(3)], mine).counts.deleted, 1);
});
