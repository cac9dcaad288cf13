// One's own sign-in security: the user (is two-step verification on?), changing the password, and
// enrolling or removing TOTP.
import { call } from '../../shared/api/client.ts';
import { invalidate } from '../../shared/api/query.ts';
import { useUser } from '../../shared/api/resources.ts';
import { useOrg } from '../../shared/app-context.tsx';

export function useMe() {
  const { orgId, me } = useOrg();
  return useUser(orgId, me.userId);
}

export function useSecurityActions() {
  const { api, orgId, me } = useOrg();
  const path = { orgId, userId: me.userId };
  return {
    async changePassword(body: { currentPassword: string; newPassword: string }) {
      await call(api.POST('/v1/orgs/{orgId}/users/{userId}/password', { params: { path }, body }));
    },
    /** Starts an enrolment: the secret and its otpauth URI for the authenticator app. */
    startTotp() {
      return call(api.POST('/v1/orgs/{orgId}/users/{userId}/mfa/totp', { params: { path } }));
    },
    async confirmTotp(code: string) {
      await call(api.POST('/v1/orgs/{orgId}/users/{userId}/mfa/totp/verify', { params: { path }, body: { code } }));
      await invalidate(['users', orgId]);
    },
    async disableTotp() {
      await call(api.DELETE('/v1/orgs/{orgId}/users/{userId}/mfa/totp', { params: { path } }));
      await invalidate(['users', orgId]);
    },
  };
}
