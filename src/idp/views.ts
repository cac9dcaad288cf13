// The sign-in pages: small, server-rendered, usable without JavaScript, labelled for screen readers.
import { createHash } from 'node:crypto';

import { escapeHtml } from '../lib/html.ts';

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;background:#f4f5f7;color:#1d2330;margin:0;display:flex;min-height:100vh;align-items:center;justify-content:center}
main{background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px rgba(0,0,0,.12);width:min(22rem,90vw)}
h1{font-size:1.3rem;margin:0 0 1rem}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #a7adba;border-radius:4px;font:inherit}
button{margin-top:1.2rem;width:100%;padding:.6rem;border:0;border-radius:4px;background:#2450d4;color:#fff;font:inherit;cursor:pointer}
.error{background:#fdecec;color:#8a1010;padding:.6rem;border-radius:4px}.hint{color:#5a6272;font-size:.9rem}
code{word-break:break-all}img{display:block;margin:1rem auto}
`;

/**
 * Where a form of these pages may lead: this origin, and the callbacks the sign-in (or a used link,
 * or a logout) ends at by redirect, since browsers apply `form-action` to the redirects that follow
 * a form post too. An http(s) callback is its origin; another scheme's (an extension's, a mobile
 * app's) its scheme and host, or its scheme alone when it has none.
 */
export function formActionSources(callbacks: string[]): string[] {
  const sources = new Set(["'self'"]);
  for (const callback of callbacks) {
    const url = URL.parse(callback);
    if (!url) continue;
    if (url.protocol === 'http:' || url.protocol === 'https:') sources.add(url.origin);
    else sources.add(url.host ? `${url.protocol}//${url.host}` : url.protocol);
  }
  return [...sources];
}

/**
 * Headers of every page of the identity provider. The pages run no script and load nothing but
 * their own inline style (allowed by its hash) and the enrolment's QR code (a data: image); they
 * may not be framed (clickjacking of the sign-in form), and their forms post only here (with
 * `form-action`). `same-origin` referrers: a browser sends a form post's `Origin` only under a
 * policy that lets it (with `no-referrer` it sends `null`), and the forms refuse posts from another
 * origin by that header (src/http/cross-site.ts); no address leaves for another site either way.
 */
export function pageHeaders(callbacks: string[]): Readonly<Record<string, string>> {
  return {
    'content-security-policy': [
      "default-src 'none'",
      `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
      'img-src data:',
      "base-uri 'none'",
      `form-action ${formActionSources(callbacks).join(' ')}`,
      "frame-ancestors 'none'",
    ].join('; '),
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
  };
}

/** The callbacks of the two clients (provider.ts): where the pages' forms may end. */
export const clientCallbacks = (config: { appUrl: string; adminUrl: string; extensionCallbackUrls: string[] }) => [
  config.appUrl,
  config.adminUrl,
  ...config.extensionCallbackUrls,
];

/** A page of the identity provider (the people pages, src/people/views.ts, use it too). */
export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Signature Service</title>
<style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

export const errorBox = (error?: string) => (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '');

export function signInPage(action: string, opts: { error?: string; client: string; email?: string; forgotUrl?: string }): string {
  return layout(
    'Sign in',
    `<h1>Sign in</h1><p class="hint">to ${escapeHtml(opts.client)}</p>${errorBox(opts.error)}
<form method="post" action="${escapeHtml(action)}">
<label for="username">Email</label><input id="username" name="username" type="email" autocomplete="username" required autofocus value="${escapeHtml(opts.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>${
      opts.forgotUrl
        ? `
<p class="hint"><a href="${escapeHtml(opts.forgotUrl)}">Forgot your password?</a></p>`
        : ''
    }`,
  );
}

export function otpPage(action: string, opts: { error?: string }): string {
  return layout(
    'Verification code',
    `<h1>Verification code</h1>${errorBox(opts.error)}
<form method="post" action="${escapeHtml(action)}">
<label for="otp">Code from your authenticator app</label><input id="otp" name="otp" inputmode="numeric" pattern="[0-9]{6}" autocomplete="one-time-code" required autofocus>
<button type="submit">Verify</button></form>`,
  );
}

export function enrolPage(action: string, opts: { secret: string; uri: string; qrDataUrl: string; error?: string }): string {
  return layout(
    'Set up two-step verification',
    `<h1>Set up two-step verification</h1>${errorBox(opts.error)}
<p>Scan this code with an authenticator app, or enter the key by hand.</p>
<img src="${escapeHtml(opts.qrDataUrl)}" width="200" height="200" alt="QR code of the authenticator key">
<p class="hint">Key: <code data-secret>${escapeHtml(opts.secret)}</code></p>
<p class="hint"><a href="${escapeHtml(opts.uri)}">Open in an authenticator app</a></p>
<form method="post" action="${escapeHtml(action)}">
<label for="otp">Code from the app</label><input id="otp" name="otp" inputmode="numeric" pattern="[0-9]{6}" autocomplete="one-time-code" required>
<button type="submit">Confirm</button></form>`,
  );
}

export function newPasswordPage(action: string, opts: { error?: string; minLength: number }): string {
  return layout(
    'Choose a new password',
    `<h1>Choose a new password</h1><p class="hint">Your administrator set a temporary password.</p>${errorBox(opts.error)}
<form method="post" action="${escapeHtml(action)}">
<label for="new_password">New password (at least ${opts.minLength} characters)</label><input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="${opts.minLength}" required autofocus>
<button type="submit">Save and continue</button></form>`,
  );
}

export function errorPage(code: string, description: string): string {
  return layout(
    'Sign-in error',
    `<h1>Something went wrong</h1><p class="error" role="alert">${escapeHtml(description)}</p><p class="hint">${escapeHtml(code)}</p>`,
  );
}

/** RP-initiated logout asks before it ends the session; `form` is the provider's (it holds the xsrf token). */
export function logoutPage(form: string): string {
  return layout(
    'Sign out',
    `<h1>Sign out?</h1><p class="hint">This ends your session and the app's sign-in on this device.</p>
${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>`,
  );
}

/** The answer (403) to a form posted from another site (src/http/cross-site.ts). */
export function crossSitePage(): string {
  return errorPage('access_denied', 'This form was sent from another site, so it was not used. Open the page again from the app or from your mail.');
}

export function signedOutPage(): string {
  return layout('Signed out', '<h1>You are signed out</h1><p class="hint">You can close this window.</p>');
}
