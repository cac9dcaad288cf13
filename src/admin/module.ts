// The staff API: every org (list, create, change its plan), staff accounts and their invitations.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import type { OrgService } from '../orgs/module.ts';
import type { MailOutbox } from '../mail/module.ts';
import { createOrgAdminService, type OrgAdminService } from './org-admin.ts';
import { createStaffAdminService, type StaffAdminService } from './staff-admin.ts';
import { createStaffInviter } from './staff-invite.ts';
import { adminOrgRoutes } from './org-routes.ts';
import { adminStaffRoutes } from './staff-routes.ts';

export type { OrgAdminService, StaffAdminService };

export type AdminModule = Module<{ orgAdmin: OrgAdminService; staffAdmin: StaffAdminService }>;

export function adminModule(core: Core, needs: { orgs: Module<OrgService>; mail: Module<MailOutbox> }): AdminModule {
  const { config, db, clock } = core;
  const mail = needs.mail.service;
  const orgAdmin = createOrgAdminService({
    db,
    orgs: needs.orgs.service,
    clock,
    mailConfigured: mail.configured,
    invalidate: core.caches.invalidate,
    // A staff change of an org's quota is read at its next request, not at the counter's next refresh.
    quotaChanged: (orgId) => core.quota.forget(orgId),
  });
  const staffAdmin = createStaffAdminService({
    db,
    clock,
    invalidate: core.caches.invalidate,
    mailConfigured: mail.configured,
    invite: createStaffInviter({ mail, authUrl: config.authUrl, adminUrl: config.adminUrl, invitationTtlS: config.invitationTtlS }),
  });
  return {
    name: 'admin',
    service: { orgAdmin, staffAdmin },
    api: ({ guards }) => [adminOrgRoutes({ guards, orgAdmin }), adminStaffRoutes({ guards, staffAdmin })],
  };
}
