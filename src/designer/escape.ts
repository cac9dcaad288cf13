// Text a person typed into a design (a disclaimer, a button's label, a link) goes into a Liquid
// template: it must show as typed, neither as HTML nor as Liquid. Each `{` becomes Liquid's output
// of the string "{": an HTML entity would not do, since the template's save decodes entities
// when it makes the HTML email-safe, and `&#123;&#123;` would come back as a Liquid output.

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '{': '{{ "{" }}' };

/** Literal text in an HTML template: escaped for HTML, and no `{` for Liquid to read. */
export function literalHtml(text: string): string {
  return text.replace(/[&<>"'{]/g, (c) => HTML_ESCAPES[c]!);
}

/** An attribute value of the compiler's own; Liquid outputs in it (`{{ user.email }}`) are kept. Never for typed text: `literalHtml`. */
export function attr(value: string): string {
  return value
    .split(/(\{\{[^{}]*\}\})/)
    .map((part, i) => (i % 2 === 1 ? part : literalHtml(part)))
    .join('');
}

/** Literal text in a plain-text template: each `{` is Liquid's output of the string "{". */
export function literalText(text: string): string {
  return text.replaceAll('{', '{{ "{" }}');
}
