import { enforce, readSignature, type Access } from '../kernel/policy.ts';
import type { UserService } from '../users/module.ts';

/**
 * Who may have a user's live signature (the signature and render routes: each serves one, an
 * impression, a `signature.rendered` event, signed click links): the user themselves, or an admin.
 * Members may list the org's users, so an unknown id answers 404 before the refusal; the user is
 * read only then, so an allowed request costs no extra query (the render answers 404 itself).
 */
export async function requireSignatureReader(users: UserService, access: Access, orgId: string, userId: string): Promise<void> {
  const decision = readSignature(access, userId);
  if (decision.allowed) return;
  await users.get(orgId, userId);
  enforce(decision);
}
