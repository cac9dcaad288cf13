// What the server adds to a built web app's index.html: a <base href> (the build's asset paths
// are relative, so one build works under any APP_URL / ADMIN_URL path and at any deep link) and
// the runtime configuration as a <meta> tag (the CSP allows no inline script), plus the headers
// every page of the apps carries.
import type { WebAppRuntimeConfig } from './runtime-config.ts';

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** index.html with the base and the config placed first in <head>. */
export function fillIndexHtml(html: string, basePath: string, config: WebAppRuntimeConfig): string {
  const head =
    `<base href="${escapeAttr(basePath.endsWith('/') ? basePath : `${basePath}/`)}">` +
    `<meta name="sigsvc-config" content="${escapeAttr(JSON.stringify(config))}">`;
  // After <meta charset> when there is one (it must come early), else first in <head>.
  const anchor = /<meta charset[^>]*>/i.exec(html) ?? /<head[^>]*>/i.exec(html);
  if (!anchor) throw new Error('the built index.html has no <head>');
  const end = anchor.index + anchor[0].length;
  return html.slice(0, end) + head + html.slice(end);
}

/**
 * The apps' Content-Security-Policy (docs/web-apps.md, "What the server adds"): scripts only from the app's own
 * origin, never framed. Styles may be inline because a signature's HTML (shown in a sandboxed
 * srcdoc frame, which inherits this policy) is styled inline; images may come from anywhere
 * because a signature's logos live wherever the org keeps them.
 */
export function contentSecurityPolicy(origins: { api: string; auth: string }): string {
  const connect = [...new Set(["'self'", origins.api, origins.auth])].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    'img-src * data: blob:',
    `connect-src ${connect}`,
    "frame-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

export function pageHeaders(csp: string): Record<string, string> {
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    // The OAuth callback carries a code in the URL until the app removes it: never sent on.
    'referrer-policy': 'no-referrer',
  };
}
