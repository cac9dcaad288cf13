// The runtime configuration the server writes into index.html (<meta name="sigsvc-config">): the
// CSP allows no inline script, and one build serves every deployment. Its type is the server's
// own (src/web-apps/runtime-config.ts, types only), so the two cannot drift apart.
import type { WebAppLimits, WebAppRuntimeConfig } from '../../src/web-apps/runtime-config.ts';

export type RuntimeConfig = WebAppRuntimeConfig;
export type Limits = WebAppLimits;

export function readRuntimeConfig(doc: Document = document): RuntimeConfig {
  const raw = doc.querySelector<HTMLMetaElement>('meta[name="sigsvc-config"]')?.content;
  if (!raw) throw new Error('This page was not served by the Signature Service (no sigsvc-config).');
  return JSON.parse(raw) as RuntimeConfig;
}

/** The app's path on its origin ("/app"): the router's basename. */
export function basePath(config: RuntimeConfig): string {
  return new URL(config.appUrl).pathname.replace(/\/+$/, '');
}
