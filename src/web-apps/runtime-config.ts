// The runtime configuration the server hands each web app in its index.html (<meta
// name="sigsvc-config">, written by index-html.ts). One definition, imported as a type by the
// server (routes.ts) and by the apps (web/shared/config.ts): it has no imports and no values, so
// both TypeScript projects can read it and neither bundle carries anything of it.

/** The service's limits a page checks or shows before asking (the service enforces them anyway). */
export interface WebAppLimits {
  /** RENDER_LIMIT_BYTES: a rendered signature's HTML, in UTF-8 bytes. */
  renderBytes: number;
  /** A template's HTML or text source, in characters. */
  templateSourceChars: number;
  /** An uploaded image's bytes. */
  imageBytes: number;
  /** An uploaded image's width and height, in pixels. */
  imageSidePx: number;
  /** A new password's length. */
  passwordMinChars: number;
}

export interface WebAppRuntimeConfig {
  app: 'app' | 'admin';
  /** The app's own URL: its OAuth callback and where sign-out returns. */
  appUrl: string;
  authUrl: string;
  clientId: string;
  /** Where the API answers (BASE_URL). */
  apiUrl: string;
  billingUrl?: string;
  limits: WebAppLimits;
}
