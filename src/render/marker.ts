// The mark a delivered signature carries (docs/gateway.md, "The signature marker"): a wrapper
// `<div class="sigsvc-signature sigsvc-<userId>">` around the rendered HTML, added where a
// signature leaves for a mailbox (the Outlook add-in's answer, the gateway's stamp). `class`
// survives the render sanitizer (src/render/email-html.ts allows it on every element) and the
// mail clients' editors keep it, so the gateway can tell that the add-in already inserted the
// user's signature and does not stamp the message again.
export const markSignature = (html: string, userId: string) => `<div class="sigsvc-signature sigsvc-${userId}">${html}</div>`;

/** Whether decoded HTML carries this user's marker. */
export const hasMarker = (html: string, userId: string) => html.toLowerCase().includes(`sigsvc-${userId.toLowerCase()}`);
