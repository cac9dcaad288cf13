// Inviting a staff member: a one-time link to choose a password (the people service's links and
// pages: only the token's hash is kept, `{auth_url}/invitation/{token}`), and its mail, queued in
// the inviting transaction. TOTP is enrolled at the first sign-in, as the admin client requires.
import type { Db } from '../store/db.ts';
import { accountTokensRepo } from '../store/repositories/account-tokens.ts';
import { hashOf, newToken, type Invitation } from '../people/module.ts';
import type { MailOutbox } from '../mail/module.ts';
import type { MailContent } from '../mail/module.ts';
import { PRODUCT_NAME } from '../mail/module.ts';
import { escapeHtml } from '../lib/html.ts';

export type StaffInviter = (tx: Db, staff: { id: string; email: string; name: string }) => Promise<Invitation>;

const daysOf = (s: number) => (s % 86400 === 0 ? `${s / 86400} day${s === 86400 ? '' : 's'}` : `${Math.round(s / 3600)} hours`);

export function staffInvitationMail(m: { name: string; url: string; adminUrl: string; ttlS: number }): MailContent {
  const greeting = m.name ? `Hello ${m.name},` : 'Hello,';
  const intro = `you have been invited to the staff of ${PRODUCT_NAME}: the admin app at ${m.adminUrl} runs the service for every organisation.`;
  const steps = 'Choose your password with the link below. At your first sign-in, an authenticator app (TOTP) is set up: keep your phone at hand.';
  const validity = `The link works once and for ${daysOf(m.ttlS)}. If you did not expect this invitation, ignore this mail.`;
  return {
    subject: `You are invited to the staff of ${PRODUCT_NAME}`,
    text: `${greeting}\n\n${intro}\n\n${steps}\n${m.url}\n\n${validity}\n`,
    html: `<!doctype html><html><body style="margin:0;padding:24px;background:#f4f5f7"><div style="max-width:520px;margin:0 auto;background:#ffffff;padding:24px;border-radius:8px;font:16px/1.5 Arial,Helvetica,sans-serif;color:#1d2330">
<p style="margin:0 0 16px">${escapeHtml(greeting)}</p><p style="margin:0 0 16px">${escapeHtml(intro)}</p><p style="margin:0 0 16px">${escapeHtml(steps)}</p>
<p style="margin:24px 0"><a href="${escapeHtml(m.url)}" style="background:#2450d4;color:#ffffff;padding:10px 18px;border-radius:4px;text-decoration:none;display:inline-block">Choose your password</a></p>
<p style="margin:0 0 16px;font-size:13px;color:#5a6272">If the button does not work, copy this address into your browser:<br>${escapeHtml(m.url)}</p>
<p style="margin:0;font-size:13px;color:#5a6272">${escapeHtml(validity)}</p></div></body></html>`,
  };
}

export function createStaffInviter(deps: { mail: MailOutbox; authUrl: string; adminUrl: string; invitationTtlS: number }): StaffInviter {
  const { mail } = deps;
  return async (tx, staff) => {
    await accountTokensRepo.voidLive(tx, staff.id, 'invitation');
    const token = newToken();
    const row = await accountTokensRepo.insert(tx, {
      purpose: 'invitation',
      accountKind: 'staff',
      accountId: staff.id,
      orgId: null,
      email: staff.email,
      tokenHash: hashOf(token),
      // Without SMTP_URL the inviting staff member hands the link over: the API answers it once.
      linkToken: null,
      ttlS: deps.invitationTtlS,
    });
    const url = `${deps.authUrl}/invitation/${token}`;
    const jobId = await mail.queue(tx, null, staff.email, staffInvitationMail({ name: staff.name, url, adminUrl: deps.adminUrl, ttlS: deps.invitationTtlS }));
    return { url, expiresAt: row.expires_at, jobId };
  };
}
