// Mail through the job queue, to a real SMTP server in the test process: the message (text + HTML,
// product and org names), an SMTP outage (delivered once the server is back, once), a permanent
// refusal (the job fails, saying why), and two instances sending from one outbox (one mail each).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startServer, type TestServer } from './helpers/server.ts';
import { startSmtp, type TestSmtp } from './helpers/smtp.ts';
import { NEEDS_POSTGRES, postgresAvailable, scratchDatabase } from './helpers/pg.ts';
import { waitFor } from './helpers/wait.ts';
import { manualClock } from './helpers/clock.ts';
import { createOrg, createUser } from './helpers/fixtures.ts';
import { invitationMail } from '../src/mail/messages.ts';
import { openDatabase } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';

const FAST_JOBS = { JOBS_POLL_MS: '25', JOBS_RETRY_BASE_MS: '100', JOBS_RETRY_MAX_MS: '300' };

const jobOf = (server: TestServer, jobId: string) => server.deps.database.db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();

describe('mail', () => {
  let smtp: TestSmtp;
  let server: TestServer;
  before(async () => {
    smtp = await startSmtp();
    server = await startServer({ SMTP_URL: smtp.url, MAIL_FROM: '"Sig Test" <mailer@example.test>', ...FAST_JOBS });
  });
  after(async () => {
    await server.close();
    await smtp.close();
  });

  test('a queued mail arrives in text and HTML, from MAIL_FROM, naming the product and the org; its payload is forgotten once sent', async () => {
    const to = `ada-${randomUUID().slice(0, 8)}@example.test`;
    const content = invitationMail({ orgName: 'Acme & <Sons>', inviteeName: 'Ada', url: 'http://x.test/auth/invitation/abc?x=1&y=2', ttlS: 604800 });
    const jobId = await server.deps.database.db.transaction().execute((trx) => server.deps.mail.queue(trx, null, to, content));
    assert.ok(jobId);
    const mail = await smtp.waitFor(to);
    assert.equal(mail.from, 'mailer@example.test');
    assert.match(mail.headers.from ?? '', /Sig Test/);
    assert.equal(mail.subject, 'You are invited to Acme & <Sons> on Signature Service');
    assert.match(mail.text, /Acme & <Sons>/);
    assert.match(mail.text, /Signature Service/);
    assert.match(mail.text, /http:\/\/x\.test\/auth\/invitation\/abc\?x=1&y=2/);
    assert.match(mail.text, /7 days/);
    assert.match(mail.html, /Acme &amp; &lt;Sons&gt;/, 'names are escaped in the HTML');
    assert.match(mail.html, /href="http:\/\/x\.test\/auth\/invitation\/abc\?x=1&amp;y=2"/);
    const job = await waitFor(async () => {
      const j = await jobOf(server, jobId);
      return j.state === 'succeeded' ? j : undefined;
    }, 'the job to end');
    assert.deepEqual(job.payload, {}, 'the link does not stay in the database');
  });

  test('SMTP down for a while: the mail arrives once the server is back, once', async () => {
    const to = `outage-${randomUUID().slice(0, 8)}@example.test`;
    await smtp.down();
    const jobId = await server.deps.mail.queue(
      server.deps.database.db,
      null,
      to,
      invitationMail({ orgName: 'Acme', inviteeName: '', url: 'http://x.test/i', ttlS: 3600 }),
    );
    assert.ok(jobId);
    // At least two failed attempts while the server is away.
    const waiting = await waitFor(async () => {
      const j = await jobOf(server, jobId);
      return j.attempts >= 2 && j.state === 'queued' ? j : undefined;
    }, 'retries during the outage');
    assert.match(waiting.error ?? '', /mail server could not take the message/);
    assert.equal(smtp.to(to).length, 0);
    await smtp.up();
    await smtp.waitFor(to);
    await waitFor(async () => (await jobOf(server, jobId)).state === 'succeeded', 'the job to succeed');
    // A succeeded job is never claimed again, and the server took every copy before the job was marked
    // succeeded: what it holds now is all there will be.
    assert.equal(smtp.to(to).length, 1, 'delivered once');
  });

  test('a permanent refusal (550) fails the mail at once and says why', async () => {
    const to = `refused-${randomUUID().slice(0, 8)}@example.test`;
    smtp.refuseWith(550);
    try {
      const jobId = await server.deps.mail.queue(
        server.deps.database.db,
        null,
        to,
        invitationMail({ orgName: 'Acme', inviteeName: '', url: 'http://x.test/i', ttlS: 3600 }),
      );
      const job = await waitFor(async () => {
        const j = await jobOf(server, jobId!);
        return j.state === 'failed' ? j : undefined;
      }, 'the job to fail');
      assert.equal(job.attempts, 1);
      assert.match(job.error ?? '', /refused the message \(SMTP 550\)/);
    } finally {
      smtp.refuseWith(undefined);
    }
  });

  test('without SMTP_URL nothing is queued or sent', async () => {
    const plain = await startServer({ ...FAST_JOBS });
    try {
      assert.equal(plain.deps.mail.configured, false);
      const jobId = await plain.deps.mail.queue(
        plain.deps.database.db,
        null,
        'x@example.test',
        invitationMail({ orgName: 'A', inviteeName: '', url: 'http://x', ttlS: 60 }),
      );
      assert.equal(jobId, undefined);
    } finally {
      await plain.close();
    }
  });
});

describe('mail: two instances on one PostgreSQL database', async () => {
  const available = await postgresAvailable();
  test('two instances sending from one outbox deliver each mail once', { skip: !available && NEEDS_POSTGRES }, async () => {
    const scratch = await scratchDatabase();
    const smtp = await startSmtp();
    const servers: TestServer[] = [];
    try {
      const database = await openDatabase({ databaseUrl: scratch.url, dataDir: 'unused' });
      await migrate(database);
      await database.close();
      for (let i = 0; i < 2; i++) servers.push(await startServer({ DATABASE_URL: scratch.url, SMTP_URL: smtp.url, ...FAST_JOBS }));
      const [a] = servers as [TestServer, TestServer];
      const addresses = Array.from({ length: 30 }, (_, i) => `two-${i}-${randomUUID().slice(0, 6)}@example.test`);
      const jobIds = await a.deps.database.db.transaction().execute(async (trx) => {
        const ids: string[] = [];
        for (const to of addresses)
          ids.push((await a.deps.mail.queue(trx, null, to, invitationMail({ orgName: 'Acme', inviteeName: '', url: 'http://x.test/i', ttlS: 3600 })))!);
        return ids;
      });
      // Every job settled: none can be claimed again, so what the server holds is all there will be.
      await waitFor(
        async () => {
          const open = await a.deps.database.db.selectFrom('jobs').select('id').where('id', 'in', jobIds).where('state', '!=', 'succeeded').execute();
          return open.length === 0;
        },
        'every mail job to succeed',
        60_000,
      );
      for (const to of addresses) assert.equal(smtp.to(to).length, 1, `one mail to ${to}`);
    } finally {
      for (const s of servers) await s.close();
      await smtp.close();
      await scratch.drop();
    }
  });
});

describe('mail caps (DECISIONS wave 3, "Mail caps")', () => {
  test("past MAIL_PER_ORG_PER_HOUR an org's mails wait in the queue for the next hour, not fail; other orgs' mails go on", async () => {
    const smtp = await startSmtp();
    // 30 s before an hour ends, on a clock that moves only when the test says.
    const hourEnd = Math.ceil(Date.now() / 3600_000) * 3600_000;
    const clock = manualClock(hourEnd - 30_000);
    // 3 an hour: the owner's invitation (sent when the org is made) and two more.
    const server = await startServer({ SMTP_URL: smtp.url, MAIL_PER_ORG_PER_HOUR: '3', ...FAST_JOBS }, { clock: clock.now });
    try {
      const [busy, quiet] = [await createOrg(server), await createOrg(server)];
      const content = invitationMail({ orgName: 'Acme', inviteeName: '', url: 'http://x.test/i', ttlS: 3600 });
      const to = Array.from({ length: 3 }, (_, i) => `capped-${i}-${randomUUID().slice(0, 8)}@example.test`);
      const jobs: string[] = [];
      for (const address of to) jobs.push((await server.deps.mail.queue(server.deps.database.db, busy.orgId, address, content))!);
      const other = `other-${randomUUID().slice(0, 8)}@example.test`;
      await server.deps.mail.queue(server.deps.database.db, quiet.orgId, other, content);
      await smtp.waitFor(other);
      // Two of the busy org's mails go out; the third is back in the queue, its attempt not counted.
      const deferred = await waitFor(async () => {
        const rows = await Promise.all(jobs.map((id) => jobOf(server, id)));
        const sent = rows.filter((r) => r.state === 'succeeded').length;
        const waiting = rows.filter((r) => r.state === 'queued' && r.attempts === 0 && r.run_after.getTime() > Date.now());
        return sent === 2 && waiting.length === 1 && waiting[0];
      }, 'two sent, one deferred');
      assert.equal(deferred.error, null, 'not a failure');
      const arrived = to.filter((a) => smtp.messages.some((m) => m.to.includes(a)));
      assert.equal(arrived.length, 2);
      // The next hour: the waiting mail goes out (the deferral is 30 s of the service's clock; the
      // test brings its run time forward rather than wait).
      clock.advance(30_000);
      await server.deps.database.db
        .updateTable('jobs')
        .set({ run_after: new Date(Date.now() - 1000) })
        .where('id', '=', deferred.id)
        .execute();
      server.deps.queue.poke();
      await smtp.waitFor(to.find((a) => !arrived.includes(a))!);
    } finally {
      await server.close();
      await smtp.close();
    }
  });

  test('an invitation can be resent 5 times an hour; the 6th is 429 scope mail until the next hour', async () => {
    const hourEnd = Math.ceil(Date.now() / 3600_000) * 3600_000;
    const clock = manualClock(hourEnd - 90_000);
    const server = await startServer({}, { clock: clock.now });
    try {
      const org = await createOrg(server);
      const user = await createUser(server, org);
      const resend = () => server.request('POST', `/v1/orgs/${org.orgId}/users/${user.userId}/invitation`, { key: org.key });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await resend()).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200]);
      const refused = await resend();
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error.details.scope, 'mail');
      assert.equal(refused.headers.get('retry-after'), '90');
      const other = await createUser(server, org);
      assert.equal((await server.request('POST', `/v1/orgs/${org.orgId}/users/${other.userId}/invitation`, { key: org.key })).status, 200, 'per user');
      clock.advance(90_000);
      assert.equal((await resend()).status, 200, 'the next hour');
    } finally {
      await server.close();
    }
  });
});
