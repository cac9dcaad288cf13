// The fake of Google for `npm run bench:google`, on a thread of its own: answering thousands of
// token exchanges and PATCHes on the bench's own event loop would slow autocannon, which measures
// the hot routes on that loop, and be counted against the service.
import { parentPort, workerData } from 'node:worker_threads';
import { fakeGoogleEnv, startFakeGoogle } from '../test/helpers/fake-google.ts';

export interface FakeWorkspace {
  env: Record<string, string>;
  keyFile: Record<string, string>;
  adminEmail: string;
}

const { domain, users } = workerData as { domain: string; users: number };
const fake = await startFakeGoogle();
const admin = fake.addUser({ primaryEmail: `admin@${domain}`, isAdmin: true, name: { fullName: 'Bench Admin' } });
for (let n = 1; n < users; n++) {
  fake.addUser({
    primaryEmail: `user${n}@${domain}`,
    name: { fullName: `User ${n}` },
    organizations: [{ title: 'Engineer', department: n % 3 ? 'R&D' : 'Sales', primary: true }],
    phones: [{ value: `+1 555 ${n}`, type: 'work' }],
  });
}
// The org's owner is a Workspace user too, so every live user has a mailbox.
fake.addUser({ primaryEmail: `owner@${domain}`, name: { fullName: 'Bench Owner' } });
const account = fake.serviceAccount();
const ready: FakeWorkspace = { env: fakeGoogleEnv(fake), keyFile: account.keyFile, adminEmail: admin.primaryEmail };
parentPort!.postMessage({ ready });
parentPort!.on('message', (message: 'patches' | 'close') => {
  if (message === 'patches') parentPort!.postMessage({ patches: fake.patches.length });
  else void fake.close().then(() => parentPort!.close());
});
