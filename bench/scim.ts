// `npm run bench:scim`: 1,000 users provisioned through SCIM by 4 concurrent clients (Entra ID's
// rate: it sends about 4 requests at once), each user as Entra does it: a lookup by userName, then
// the create. The service runs as its own process on the embedded database (or DATABASE_URL), with
// the SCIM throttle as deployed (50 a second per org, bursts of 200: src/ratelimit/limiters.ts), so
// the time includes any 429 a client waits out. Prints the time, then checks every user is present
// once (by SCIM's list and by our API). Then one group of 10,000 members (`--members`; the users
// made through the API's JSON import, 1,000 a request): its PUT, its GET, a PATCH removing 1,000 of
// them, the PUT again, each timed, with the worst /health answer seen while they ran.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { httpRequest, type TestResponse } from '../test/helpers/server.ts';
import type { ServiceProcess } from '../test/helpers/process.ts';
import { benchEnv, orgAndService } from './measure.ts';

const { values } = parseArgs({
  options: { users: { type: 'string', default: '1000' }, clients: { type: 'string', default: '4' }, members: { type: 'string', default: '10000' } },
});
const userCount = Number(values.users);
const clients = Number(values.clients);
const memberCount = Number(values.members);
const progress = (line: string) => process.stderr.write(`${line}\n`);

const dataDir = mkdtempSync(join(tmpdir(), 'sigsvc-bench-scim-'));
const env = benchEnv(dataDir, { STAGE: 'benchscim' });
let service: ServiceProcess | undefined;
try {
  const made = await orgAndService(env, { name: 'SCIM Bench', seats: userCount + memberCount + 10, ownerEmail: 'owner@scim-bench.test' });
  const org = made.org;
  service = made.service;
  const url = made.service.url;
  const enabled = await httpRequest(url, 'POST', `/v1/orgs/${org.orgId}/integrations/scim`, { key: org.apiKey.key });
  if (enabled.status !== 201) throw new Error(`token: ${enabled.text}`);
  const token = enabled.body.token as string;

  let retried = 0;
  /** A SCIM request as Entra sends it, waiting out a 429's Retry-After as Entra does. */
  const scim = async (method: string, path: string, body?: unknown): Promise<TestResponse> => {
    for (;;) {
      const res = await httpRequest(url, method, `/scim/v2${path}`, {
        token,
        ...(body ? { rawBody: JSON.stringify(body), headers: { 'content-type': 'application/scim+json' } } : {}),
      });
      if (res.status !== 429) return res;
      retried++;
      await sleep(Number(res.headers.get('retry-after') ?? '1') * 1000);
    }
  };
  const emailOf = (i: number) => `user${i}@scim-bench.test`;
  let next = 0;
  progress(`… provisioning ${userCount} users with ${clients} clients`);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < userCount) {
        const i = next++;
        const email = emailOf(i);
        const found = await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}`);
        if (found.status !== 200 || found.body.totalResults !== 0) throw new Error(`lookup ${email}: ${found.status} ${found.text}`);
        const made = await scim('POST', '/Users', {
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
          externalId: `ext-${i}`,
          userName: email,
          active: true,
          emails: [{ primary: true, type: 'work', value: email }],
          name: { formatted: `User ${i}`, givenName: 'User', familyName: String(i) },
          title: 'Engineer',
          'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'R&D' },
        });
        if (made.status !== 201) throw new Error(`create ${email}: ${made.status} ${made.text}`);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;

  // Every user present once: SCIM's count, and our API's list (owner included).
  const listed = await scim('GET', '/Users?count=1');
  const emails = new Set<string>();
  let cursor: string | null = null;
  let rows = 0;
  do {
    const page: TestResponse = await httpRequest(url, 'GET', `/v1/orgs/${org.orgId}/users?limit=200${cursor ? `&cursor=${cursor}` : ''}`, {
      key: org.apiKey.key,
    });
    for (const u of page.body.items as { email: string }[]) {
      emails.add(u.email);
      rows++;
    }
    cursor = page.body.nextCursor;
  } while (cursor);
  const missing = Array.from({ length: userCount }, (_, i) => emailOf(i)).filter((e) => !emails.has(e));
  const ok = listed.body.totalResults === userCount + 1 && rows === userCount + 1 && missing.length === 0;
  console.log(
    JSON.stringify(
      {
        users: userCount,
        clients,
        requests: userCount * 2,
        seconds: Number(seconds.toFixed(2)),
        usersPerSecond: Number((userCount / seconds).toFixed(1)),
        throttledAndRetried: retried,
        everyUserOnce: ok,
      },
      null,
      2,
    ),
  );
  if (!ok)
    throw new Error(`expected ${userCount} users once each: SCIM counted ${listed.body.totalResults}, the API listed ${rows}, missing ${missing.length}`);
  if (memberCount > 0) console.log(JSON.stringify(await bigGroup(url, org, scim, memberCount), null, 2));
} finally {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/** One group of `count` members, made and changed through SCIM, each step timed while /health is polled. */
async function bigGroup(
  url: string,
  org: { orgId: string; apiKey: { key: string } },
  scim: (method: string, path: string, body?: unknown) => Promise<TestResponse>,
  count: number,
) {
  progress(`… importing ${count} users for the group`);
  const ids: string[] = [];
  for (let start = 0; start < count; start += 1000) {
    const rows = Array.from({ length: Math.min(1000, count - start) }, (_, i) => ({
      email: `member${start + i}@scim-bench.test`,
      name: `Member ${start + i}`,
    }));
    const res = await httpRequest(url, 'POST', `/v1/orgs/${org.orgId}/users/import`, { key: org.apiKey.key, body: rows });
    if (res.status !== 200) throw new Error(`import: ${res.status} ${res.text}`);
    for (const r of res.body.results as { status: string; userId: string | null }[]) {
      if (r.status !== 'created' || !r.userId) throw new Error(`import row: ${JSON.stringify(r)}`);
      ids.push(r.userId);
    }
  }
  const made = await scim('POST', '/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Everyone' });
  if (made.status !== 201) throw new Error(`group: ${made.text}`);
  const path = `/Groups/${made.body.id}`;
  const put = () =>
    scim('PUT', path, { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Everyone', members: ids.map((value) => ({ value })) });
  const steps: Record<string, { ms: number; status: number; worstHealthMs: number }> = {};
  const step = async (name: string, run: () => Promise<TestResponse>, check: (res: TestResponse) => boolean) => {
    progress(`… ${name}`);
    let worst = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const t = performance.now();
        await httpRequest(url, 'GET', '/health');
        worst = Math.max(worst, performance.now() - t);
        await sleep(20);
      }
    })();
    const t0 = performance.now();
    const res = await run();
    const ms = performance.now() - t0;
    polling = false;
    await poller;
    if (!check(res)) throw new Error(`${name}: ${res.status} ${res.text.slice(0, 500)}`);
    steps[name] = { ms: Math.round(ms), status: res.status, worstHealthMs: Math.round(worst) };
  };
  await step(`PUT with ${count} members`, put, (r) => r.status === 200);
  await step(
    'GET with its members',
    () => scim('GET', path),
    (r) => r.status === 200 && r.body.members.length === count,
  );
  await step(
    'PATCH removing 1,000 members',
    () =>
      scim('PATCH', path, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'remove', path: 'members', value: ids.slice(0, 1000).map((value) => ({ value })) }],
      }),
    (r) => r.status === 200 || r.status === 204,
  );
  await step(`PUT with ${count} members again`, put, (r) => r.status === 200);
  const back = await scim('GET', `${path}?excludedAttributes=members`);
  return { group: { members: count, steps, displayName: back.body.displayName } };
}
