// A template as saved: both parts parse, the HTML is made email-safe, a trial render with sample
// values proves it stays inside the limits, and unknown variables come back as warnings.
import type { Template } from 'liquidjs';
import { htmlLiquid, parseTemplate, renderTemplate, textLiquid, unknownVariables } from './liquid.ts';
import { prepareTemplateHtml } from './email-html.ts';

export const SAMPLE_SCOPE = {
  user: { name: 'Ada Lovelace', title: 'Engineer', email: 'ada@example.com', phone: '+44 20 7946 0000', mobile: '+44 7700 900000', department: 'Research' },
  org: { name: 'Example Ltd' },
  pixel_url: 'https://example.com/v1/p/00000000-0000-4000-8000-000000000000',
};

export async function compileTemplate(
  input: { html: string; text: string },
): Promise<{ htmlPrepared: string; parsed: { html: Template[]; text: Template[] }; warnings: string[] }> {
  // Syntax errors are reported against the admin's own source (its lines and columns).
  parseTemplate(input.html, 'html');
  const text = parseTemplate(input.text, 'text');
  const htmlPrepared = prepareTemplateHtml(input.html);
  const html = parseTemplate(htmlPrepared, 'html');
  await renderTemplate(html, htmlLiquid, SAMPLE_SCOPE, 'html');
  await renderTemplate(text, textLiquid, SAMPLE_SCOPE, 'text');
  const unknown = [...new Set([...unknownVariables(html, htmlLiquid), ...unknownVariables(text, textLiquid)])].sort();
  const warnings = unknown.map((v) => `Unknown variable "${v}": it renders empty. Known: user.name, user.title, user.email, user.phone, user.mobile, user.department, org.name, pixel_url.`);
  return { htmlPrepared, parsed: { html, text }, warnings };
}
