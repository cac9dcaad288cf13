// Users of an org: the API's CRUD, the CSV import, and each user's second factor (TOTP).
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import type { Idp } from '../idp/module.ts';
import type { PeopleService } from '../people/module.ts';
import { requireFreeSeat } from '../billing/module.ts';
import { createUserService, type UserService } from './service.ts';
import { createUserImport, type UserImport } from './import.ts';
import { createMfaService, type MfaService } from './mfa.ts';
import { userRoutes } from './routes.ts';
import { mfaRoutes } from './mfa-routes.ts';
import { userImportRoutes } from './import-routes.ts';
import { photoRoutes } from './photo-routes.ts';
import type { ImageService } from '../images/module.ts';

export type { SeatCheck } from './service.ts';
/** A user as the API answers it (the outbound webhooks' `user.*` events carry it). */
export { toUser } from './resource.ts';
export { statusChange } from './status.ts';

export type { MfaService, UserImport, UserService };

export type UsersModule = Module<UserService> & { userImport: UserImport; mfa: MfaService };

export function usersModule(core: Core, needs: { people: Module<PeopleService>; idp: Module<Idp>; images: Module<ImageService> }): UsersModule {
  const { db } = core;
  const { invalidate } = core.caches;
  const people = needs.people.service;
  // Invitations are made by the people service, in the creating transaction.
  const images = needs.images.service;
  const users = createUserService({
    db,
    invalidate,
    seatCheck: requireFreeSeat,
    passwords: core.passwords,
    invite: (tx, user) => people.inviteInTx(tx, user),
    releasePhoto: images.releaseAfter,
  });
  const userImport = createUserImport({ db, users });
  const mfa = createMfaService({ db, users, signIn: needs.idp.service.signIn, invalidate });
  return {
    name: 'users',
    service: users,
    userImport,
    mfa,
    api: ({ guards, billing }) => [
      userRoutes({ guards, billing, users, people }),
      mfaRoutes({ guards, billing, mfa }),
      photoRoutes({ guards, billing, users, images }),
      userImportRoutes({ guards, billing, userImport }),
    ],
  };
}
