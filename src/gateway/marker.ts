// The mark a delivered signature carries (docs/gateway.md, "The signature marker"): a wrapper
// `<div class="sigsvc-signature sigsvc-<userId>">`. `class` survives the render sanitizer
// (src/render/email-html.ts allows it on every element) and the mail clients' editors, so the
// gateway can tell that the add-in already inserted the user's signature.
export const markSignature = (html: string, userId: string) => `<div class="sigsvc-signature sigsvc-${userId}">${html}</div>`;

/** Finds the user ids of markers in decoded HTML. */
export const MARKER_IN_TEXT = /\bsigsvc-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/gi;
