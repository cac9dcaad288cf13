// The mails the service sends, each in plain text and HTML, naming the product and the org. The
// HTML is a plain, table-free layout with inline styles (mail clients strip <style>), and every
// value in it is escaped: names come from users.
import { escapeHtml } from '../lib/html.ts';

export const PRODUCT_NAME = 'Signature Service';

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

function html(paragraphs: string[], action: { label: string; url: string }, footer: string): string {
  const p = (s: string) => `<p style="margin:0 0 16px">${s}</p>`;
  return `<!doctype html><html><body style="margin:0;padding:24px;background:#f4f5f7">
<div style="max-width:520px;margin:0 auto;background:#ffffff;padding:24px;border-radius:8px;font:16px/1.5 Arial,Helvetica,sans-serif;color:#1d2330">
${paragraphs.map(p).join('\n')}
<p style="margin:24px 0"><a href="${escapeHtml(action.url)}" style="background:#2450d4;color:#ffffff;padding:10px 18px;border-radius:4px;text-decoration:none;display:inline-block">${escapeHtml(action.label)}</a></p>
<p style="margin:0 0 16px;font-size:13px;color:#5a6272">If the button does not work, copy this address into your browser:<br>${escapeHtml(action.url)}</p>
<p style="margin:0;font-size:13px;color:#5a6272">${footer}</p>
</div></body></html>`;
}

const days = (s: number) =>
  s % 86400 === 0 ? `${s / 86400} day${s === 86400 ? '' : 's'}` : s % 3600 === 0 ? `${s / 3600} hours` : `${Math.round(s / 60)} minutes`;

export function invitationMail(m: { orgName: string; inviteeName: string; url: string; ttlS: number }): MailContent {
  const greeting = m.inviteeName ? `Hello ${m.inviteeName},` : 'Hello,';
  const intro = `you have been invited to ${m.orgName} on ${PRODUCT_NAME}, where your email signature is kept.`;
  const validity = `The link works once and for ${days(m.ttlS)}.`;
  return {
    subject: `You are invited to ${m.orgName} on ${PRODUCT_NAME}`,
    text: `${greeting}\n\n${intro}\n\nChoose your password here:\n${m.url}\n\n${validity} If you did not expect this invitation, ignore this mail.\n\n${PRODUCT_NAME} for ${m.orgName}\n`,
    html: html(
      [escapeHtml(greeting), escapeHtml(intro), 'Choose your password to get in:'],
      { label: 'Accept the invitation', url: m.url },
      `${escapeHtml(validity)} If you did not expect this invitation, ignore this mail. — ${escapeHtml(PRODUCT_NAME)} for ${escapeHtml(m.orgName)}`,
    ),
  };
}

export function passwordResetMail(m: { orgName: string | null; name: string; url: string; ttlS: number }): MailContent {
  const greeting = m.name ? `Hello ${m.name},` : 'Hello,';
  const where = m.orgName ? `${m.orgName} on ${PRODUCT_NAME}` : PRODUCT_NAME;
  const intro = `someone (we hope you) asked to reset your password for ${where}.`;
  const validity = `The link works once and for ${days(m.ttlS)}. If you did not ask for it, ignore this mail: your password stays as it is.`;
  return {
    subject: `Reset your ${PRODUCT_NAME} password`,
    text: `${greeting}\n\n${intro}\n\nChoose a new password here:\n${m.url}\n\n${validity}\n\n${where}\n`,
    html: html([escapeHtml(greeting), escapeHtml(intro)], { label: 'Choose a new password', url: m.url }, `${escapeHtml(validity)} — ${escapeHtml(where)}`),
  };
}
