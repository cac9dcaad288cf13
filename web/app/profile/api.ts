// The profile page's reads and its one write: the signed-in person's user, the org (its name goes
// into the preview), the default template, and saving one's own fields.
import { call } from '../../shared/api/client.ts';
import { invalidate } from '../../shared/api/query.ts';
import { useOrgResource, useTemplateList, useUser } from '../../shared/api/resources.ts';
import { useOrg } from '../../shared/app-context.tsx';
import type { User } from '../../shared/api/types.ts';

export type ProfileFields = Pick<User, 'name' | 'title' | 'department' | 'phone' | 'mobile'>;

export function useMe() {
  const { orgId, me } = useOrg();
  return useUser(orgId, me.userId);
}

export function useMyOrg() {
  return useOrgResource(useOrg().orgId);
}

/** The org's default template (undefined while loading or when it has none). */
export function useDefaultTemplate() {
  const templates = useTemplateList(useOrg().orgId);
  return { ...templates, template: templates.data?.items.find((t) => t.isDefault) };
}

export function useProfileActions() {
  const { api, orgId } = useOrg();
  return {
    /** Saves the changed fields against the version read; the user and the signature are read again. */
    async save(user: User, changed: Partial<ProfileFields>) {
      const saved = await call(
        api.PATCH('/v1/orgs/{orgId}/users/{userId}', { params: { path: { orgId, userId: user.userId } }, body: { version: user.version, ...changed } }),
      );
      await Promise.all([invalidate(['users', orgId]), invalidate(['signature', orgId])]);
      return saved;
    },
    /** Reads the user again (after a save lost a race). */
    reload: (user: User) => invalidate(['users', orgId, user.userId]),
  };
}
