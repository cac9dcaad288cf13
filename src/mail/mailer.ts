// Sending mail: nodemailer over SMTP_URL (smtp:// or smtps://). Mail is never sent from a request:
// `queueMail` writes a `mail.send` job in the caller's transaction, and the job queue's worker
// sends it (retrying while the SMTP server is away; past its org's hourly cap, in the next hour).
// Without SMTP_URL nothing is queued or sent.
import type Nodemailer from 'nodemailer';
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import { enqueue, JobDeferredError, JobFailedError, RetryableJobError, type JobHandler, type JobRegistry } from '../jobs/queue.ts';
import { takeOrgMailSlot, untilNextHour } from './caps.ts';
import type { MailContent } from './messages.ts';

export const MAIL_JOB = 'mail.send';

export interface MailPayload extends MailContent {
  to: string;
}

/** Writing mail to the job queue (what the CLI can do too: the service's worker sends it). */
export interface MailOutbox {
  /** False without SMTP_URL: nothing is sent, and callers show links another way. */
  readonly configured: boolean;
  /** Queues a mail in the caller's transaction and answers its job id; does nothing when mail is not configured. */
  queue(trx: Db, orgId: string | null, to: string, content: MailContent): Promise<string | undefined>;
}

export interface Mail extends MailOutbox {
  close(): void;
}

export function mailOutbox(configured: boolean): MailOutbox {
  return {
    configured,
    async queue(trx, orgId, to, content) {
      if (!configured) return undefined;
      const job = await enqueue(trx, { kind: MAIL_JOB, orgId, payload: { to, ...content } satisfies MailPayload });
      return job.jobId;
    },
  };
}

// A mail that cannot be sent after this many attempts (about 4 hours of backoff at the defaults)
// fails for good; the job's error says why.
const MAIL_ATTEMPTS = 20;

export function createMail(deps: {
  smtpUrl: string | undefined;
  from: string;
  queue: JobRegistry;
  logger: Logger;
  db: Db;
  clock: () => Date;
  /** MAIL_PER_ORG_PER_HOUR: past it an org's mails wait for the next hour (src/mail/caps.ts). */
  perOrgPerHour: number;
}): Mail {
  const { smtpUrl } = deps;
  if (!smtpUrl) return { ...mailOutbox(false), close() {} };
  // Made with the first mail: nodemailer is loaded then, not by every process that could send one
  // (a few MB of heap; BENCHMARKS.md, "Memory").
  let transport: Promise<ReturnType<typeof Nodemailer.createTransport>> | undefined;
  const transportNow = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url: smtpUrl,
        // A server that does not answer is an outage like any other: the job retries later.
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
      } as Parameters<typeof nodemailer.createTransport>[0]),
    ));
  const send: JobHandler<MailPayload> = async (job) => {
    const { to, subject, text, html } = job.payload;
    if (job.orgId) {
      const now = deps.clock();
      if (!(await takeOrgMailSlot(deps.db, job.orgId, now, deps.perOrgPerHour))) {
        // At least a second: a clock a little behind the database's never makes a busy loop.
        throw new JobDeferredError(`the org sent ${deps.perOrgPerHour} mails this hour`, Math.max(1000, untilNextHour(now)));
      }
    }
    try {
      await (await transportNow()).sendMail({ from: deps.from, to, subject, text, html });
    } catch (err) {
      throw classify(err);
    }
  };
  deps.queue.registerHandler(MAIL_JOB, send, { maxAttempts: MAIL_ATTEMPTS, forgetPayload: true });
  return {
    ...mailOutbox(true),
    close() {
      void transport?.then((t) => t.close());
    },
  };
}

/**
 * A permanent refusal (an SMTP 5xx about this message or recipient) fails the mail; anything else
 * (no connection, a timeout, a 4xx, a refused login while the operator fixes the settings) retries.
 */
function classify(err: unknown): Error {
  const e = err as { responseCode?: number; code?: string; message?: string };
  const reason = e.responseCode ? `SMTP ${e.responseCode}` : (e.code ?? 'error');
  if (e.responseCode !== undefined && e.responseCode >= 500 && e.code !== 'EAUTH') {
    return new JobFailedError(`The mail server refused the message (${reason}).`, { cause: err });
  }
  return new RetryableJobError(`The mail server could not take the message (${reason}); it will be tried again.`, { cause: err });
}
