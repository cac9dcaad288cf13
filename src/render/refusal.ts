// What a template's refusal names, apart from liquidjs: the render pool (the main thread, which
// never loads liquidjs) words its own refusals the same way as the render thread's.

/**
 * What a template being rendered came from: the request's body (a save, a preview), or a saved
 * template rendered for a user (a render, the signature and add-in routes, a push, the gateway).
 * A refusal names what failed: `body.html` only where the request sent html; a render's request
 * sent at most the template's id, so its refusal names the template and its part.
 */
export type TemplateOrigin = 'body' | 'saved';

/** The field a refusal names, and the subject its message begins with. */
export function refusalSubject(origin: TemplateOrigin, part: 'html' | 'text'): { field: string; subject: string; context: string } {
  return origin === 'body'
    ? { field: `body.${part}`, subject: `body.${part}: the template`, context: '' }
    : { field: 'templateId', subject: `The template's ${part} part`, context: " with this user's values" };
}
