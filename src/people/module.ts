// People getting in: invitations, password reset, one's own password; the pages of the links.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import type { MailOutbox } from '../mail/module.ts';
import type { Idp } from '../idp/module.ts';
import { createPeopleService, type PeopleService } from './service.ts';
import { createInviter, hashOf, newToken, type Invitation, type Inviter } from './invite.ts';
import { peopleRoutes } from './routes.ts';
import { peoplePageRoutes } from './page-routes.ts';
import { registerPeopleJobs } from './jobs.ts';
import { collectJobs } from '../core/module.ts';

export { hashOf, newToken, type Invitation, type Inviter, type PeopleService };

/** The inviter alone (a user's invitation link and its mail), for a process without the sign-in pages: the CLI. */
export function inviterOf(core: Core, mail: MailOutbox): Inviter {
  return createInviter({ mail, authUrl: core.config.authUrl, invitationTtlS: core.config.invitationTtlS });
}

export function peopleModule(core: Core, needs: { mail: Module<MailOutbox>; idp: Module<Idp> }): Module<PeopleService> {
  const { config } = core;
  const { provider, signIn, authPath, takeAttempt, pageHeaders } = needs.idp.service;
  const people = createPeopleService({
    db: core.db,
    logger: core.logger,
    mail: needs.mail.service,
    passwords: core.passwords,
    signIn,
    invalidate: core.caches.invalidate,
    authUrl: config.authUrl,
    invitationTtlS: config.invitationTtlS,
    passwordResetTtlS: config.passwordResetTtlS,
    resetMailsPerAddressPerHour: config.resetMailsPerAddressPerHour,
    clock: core.clock,
  });
  return {
    name: 'people',
    service: people,
    api: ({ guards, billing }) => [peopleRoutes({ guards, billing, people })],
    public: [
      peoplePageRoutes({
        people,
        provider,
        authUrl: config.authUrl,
        authPath,
        appUrl: config.appUrl,
        adminUrl: config.adminUrl,
        sessionTtlS: Math.max(config.refreshTokenTtlAppS, config.refreshTokenTtlAdminS),
        takeAttempt,
        pageHeaders,
        clock: core.clock,
      }),
    ],
    jobs: collectJobs((registry) => registerPeopleJobs(registry, people)),
  };
}
