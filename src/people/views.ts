// The pages of invitations and password reset: server-rendered like the sign-in pages (the same
// layout, style and Content-Security-Policy), usable without JavaScript.
import { escapeHtml } from '../lib/html.ts';
import { errorBox, layout } from '../idp/module.ts';

function passwordFields(minLength: number): string {
  return `<label for="password">New password (at least ${minLength} characters)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="${minLength}" required autofocus>
<label for="passwordConfirm">The same password again</label><input id="passwordConfirm" name="passwordConfirm" type="password" autocomplete="new-password" minlength="${minLength}" required>`;
}

export function invitationPage(action: string, opts: { email: string; orgName: string; minLength: number; error?: string }): string {
  return layout(
    'Accept the invitation',
    `<h1>Welcome</h1><p class="hint">You were invited to ${escapeHtml(opts.orgName || 'an organisation')} as ${escapeHtml(opts.email)}. Choose your password.</p>${errorBox(opts.error)}
<form method="post" action="${escapeHtml(action)}">
${passwordFields(opts.minLength)}
<button type="submit">Save and sign in</button></form>`,
  );
}

export function resetPage(action: string, opts: { email: string; minLength: number; error?: string }): string {
  return layout(
    'Choose a new password',
    `<h1>Choose a new password</h1><p class="hint">for ${escapeHtml(opts.email)}. This signs you out everywhere else.</p>${errorBox(opts.error)}
<form method="post" action="${escapeHtml(action)}">
${passwordFields(opts.minLength)}
<button type="submit">Save and sign in</button></form>`,
  );
}

export function forgotPage(action: string, opts: { error?: string; email?: string } = {}): string {
  return layout(
    'Forgot your password?',
    `<h1>Forgot your password?</h1><p class="hint">Enter your email address: if it belongs to an account, we send it a link to choose a new password.</p>${errorBox(opts.error)}
<form method="post" action="${escapeHtml(action)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required autofocus value="${escapeHtml(opts.email ?? '')}">
<button type="submit">Send the link</button></form>`,
  );
}

export function forgotSentPage(): string {
  return layout(
    'Check your mail',
    '<h1>Check your mail</h1><p>If the address belongs to an account, a link to choose a new password is on its way. It works once, for a short while.</p><p class="hint">No mail after a few minutes? Look in the spam folder, or ask again.</p>',
  );
}

export function linkProblemPage(title: string, message: string, next: { href: string; label: string }): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1><p class="error" role="alert">${escapeHtml(message)}</p><p class="hint"><a href="${escapeHtml(next.href)}">${escapeHtml(next.label)}</a></p>`,
  );
}
