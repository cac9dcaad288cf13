// Inviting a user: a one-time link (only its hash is stored) and its mail, written in the caller's
// transaction. Used by the API (users created without a password, resending) and by the CLI's
// `org create` (which has no job worker: the service's worker sends the mail it queues).
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../store/db.ts';
import type { UserRow } from '../store/schema.ts';
import { accountTokensRepo } from '../store/repositories/account-tokens.ts';
import { orgsRepo } from '../store/repositories/orgs.ts';
import type { MailOutbox } from '../mail/module.ts';
import { invitationMail } from '../mail/module.ts';

/** 32 random bytes, base64url: the only shape a link's token has. */
export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
export const newToken = () => randomBytes(32).toString('base64url');
export const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export interface Invitation {
  url: string;
  expiresAt: Date;
  /** The mail's job; undefined without SMTP_URL (the link is then kept for admins to hand over). */
  jobId: string | undefined;
}

export type Inviter = (tx: Db, user: Pick<UserRow, 'id' | 'org_id' | 'email' | 'name'>) => Promise<Invitation>;

export function createInviter(deps: { mail: MailOutbox; authUrl: string; invitationTtlS: number }): Inviter {
  const { mail } = deps;
  /** Voids the user's earlier invitation links, makes a new one, and queues its mail. */
  return async (tx, user) => {
    await accountTokensRepo.voidLive(tx, user.id, 'invitation');
    const token = newToken();
    const row = await accountTokensRepo.insert(tx, {
      purpose: 'invitation',
      accountKind: 'user',
      accountId: user.id,
      orgId: user.org_id,
      email: user.email,
      tokenHash: hashOf(token),
      linkToken: mail.configured ? null : token,
      ttlS: deps.invitationTtlS,
    });
    const url = `${deps.authUrl}/invitation/${token}`;
    const org = await orgsRepo.find(tx, user.org_id);
    const jobId = await mail.queue(
      tx,
      user.org_id,
      user.email,
      invitationMail({ orgName: org?.name ?? '', inviteeName: user.name, url, ttlS: deps.invitationTtlS }),
    );
    return { url, expiresAt: row.expires_at, jobId };
  };
}
