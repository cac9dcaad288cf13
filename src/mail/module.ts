// Mail through the job queue: `configured` is false without SMTP_URL (then nothing is queued).
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { collectJobs } from '../core/module.ts';
import { createMail, mailOutbox, type Mail, type MailOutbox } from './mailer.ts';

export { PRODUCT_NAME, invitationMail, passwordResetMail, type MailContent } from './messages.ts';

export { mailOutbox, type Mail, type MailOutbox };
export { takeResend } from './caps.ts';

export function mailModule(core: Core): Module<Mail> {
  let mail: Mail | undefined;
  const jobs = collectJobs((registry) => {
    mail = createMail({
      smtpUrl: core.config.smtpUrl,
      from: core.config.mailFrom,
      queue: registry,
      logger: core.logger,
      db: core.db,
      clock: core.clock,
      perOrgPerHour: core.config.mailPerOrgPerHour,
    });
  });
  const service = mail as Mail;
  return {
    name: 'mail',
    service,
    jobs,
    async close() {
      service.close();
    },
  };
}
