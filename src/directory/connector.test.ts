// Each connector maps its directory's users to our profile fields (docs/google-workspace.md,
// docs/entra-sync.md), and the shared reader turns their pages into one list, leaving out users
// without an address and refusing an empty directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { googleConnector } from '../google/connector.ts';
import { microsoftConnector } from '../microsoft/connector.ts';
import { readDirectory, type DirectoryConnector } from './connector.ts';
import { ConnectorError } from './errors.ts';

const unused = {} as never;
const google = googleConnector({ db: unused, secrets: unused, client: unused, enqueue: unused, lease: unused, syncIntervalS: 3600 });
const microsoft = microsoftConnector({ db: unused, secrets: unused, graph: unused, clock: () => new Date(0), syncIntervalS: 900 });

test('Google: primaryEmail, the full name, the primary organisation, work and mobile phones, the photo etag; suspended or archived is inactive', () => {
  const user = google.toUser({
    id: 'g1',
    primaryEmail: 'ada@corp.test',
    name: { fullName: ' Ada Lovelace ', givenName: 'Ada', familyName: 'Lovelace' },
    organizations: [
      { title: 'Intern', department: 'Old' },
      { title: 'Engineer', department: 'R&D', primary: true },
    ],
    phones: [
      { value: '+44 1', type: 'work' },
      { value: '+44 2', type: 'work', primary: true },
      { value: '+44 7', type: 'mobile' },
    ],
  });
  assert.deepEqual(user, {
    externalId: 'g1',
    email: 'ada@corp.test',
    name: 'Ada Lovelace',
    title: 'Engineer',
    department: 'R&D',
    phone: '+44 2',
    mobile: '+44 7',
    active: true,
    photoEtag: null,
  });
  const bare = google.toUser({ id: 'g2', primaryEmail: 'b@corp.test', name: { givenName: 'Bo' }, suspended: true });
  assert.deepEqual(bare, {
    externalId: 'g2',
    email: 'b@corp.test',
    name: 'Bo',
    title: '',
    department: '',
    phone: '',
    mobile: '',
    active: false,
    photoEtag: null,
  });
  // A listed photo's etag is its mark: the sync downloads the photo only when it changes.
  const pictured = google.toUser({ id: 'g5', primaryEmail: 'e@corp.test', thumbnailPhotoUrl: 'https://lh3.example/p', thumbnailPhotoEtag: '"e1"' });
  assert.equal(pictured.photoEtag, '"e1"');
  assert.equal(google.toUser({ id: 'g3', primaryEmail: 'c@corp.test', archived: true }).active, false);
  // Longer than our fields allow, or holding what PostgreSQL's text cannot: clipped, NUL removed.
  assert.equal(google.toUser({ id: 'g4', primaryEmail: 'd@corp.test', name: { fullName: `A\u0000${'x'.repeat(300)}` } }).name, `A${'x'.repeat(199)}`);
});

test('Microsoft: mail else userPrincipalName, displayName, jobTitle, department, the first business phone, mobilePhone; accountEnabled false is inactive', () => {
  const user = microsoft.toUser({
    id: 'm1',
    mail: null,
    userPrincipalName: 'grace@contoso.onmicrosoft.com',
    displayName: ' Grace Hopper ',
    jobTitle: 'Rear Admiral',
    department: 'Navy',
    businessPhones: ['+1 1', '+1 2'],
    mobilePhone: '+1 7',
    accountEnabled: true,
  });
  assert.deepEqual(user, {
    externalId: 'm1',
    email: 'grace@contoso.onmicrosoft.com',
    name: 'Grace Hopper',
    title: 'Rear Admiral',
    department: 'Navy',
    phone: '+1 1',
    mobile: '+1 7',
    active: true,
  });
  assert.equal(microsoft.toUser({ id: 'm2', mail: 'x@contoso.test', accountEnabled: false }).active, false);
  assert.equal(microsoft.toUser({ id: 'm3', mail: 'y@contoso.test' }).active, true, 'accountEnabled not selected: enabled');
});

test('each connector says its source, its label and its interval', () => {
  assert.deepEqual([google.source, google.label, google.syncIntervalS], ['google', 'Google', 3600]);
  assert.deepEqual([microsoft.source, microsoft.label, microsoft.syncIntervalS], ['microsoft', 'Microsoft Graph', 900]);
});

/** A directory of the pages given here (readDirectory reads only its pages, mapping and limits). */
function paged(pages: { id: string; mail: string }[][]): DirectoryConnector<null, { id: string; mail: string }> {
  const notRead = () => assert.fail('readDirectory reads only the pages');
  return {
    source: 'microsoft',
    label: 'Directory',
    syncIntervalS: 60,
    maxPages: 10,
    connection: notRead,
    syncsUsers: notRead,
    claimDue: notRead,
    recordOutcome: notRead,
    async *listUsers() {
      yield* pages;
    },
    toUser: (u) => ({ externalId: u.id, email: u.mail, name: '', title: '', department: '', phone: '', mobile: '', active: true }),
  };
}

test('the reader joins the pages, leaves out users without an address, and refuses a directory with nobody', async () => {
  const users = await readDirectory(
    paged([
      [
        { id: '1', mail: 'a@x.test' },
        { id: '2', mail: '' },
      ],
      [],
      [{ id: '3', mail: 'c@x.test' }],
    ]),
    null,
  );
  assert.deepEqual(
    users.map((u) => u.externalId),
    ['1', '3'],
  );
  await assert.rejects(
    readDirectory(paged([[{ id: '2', mail: '' }]]), null),
    (err) => err instanceof ConnectorError && /listed no users at all; nothing was changed/.test(err.message),
  );
});
