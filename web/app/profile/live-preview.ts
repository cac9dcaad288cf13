// The profile page's preview as the person types: the org's default template rendered in the
// browser with the values not yet saved. liquidjs (the engine the service renders with) loads
// with this page only. The service still renders the real signature (with its sanitising and CSS
// inlining) once the profile is saved; this preview is shown in the same script-less frame.
import { Liquid } from 'liquidjs';

// The parse limit is the service's (a template's source length, from the runtime config); the
// render time limit is this page's own budget, in milliseconds.
const engines = new Map<number, Liquid>();
function engine(parseLimit: number): Liquid {
  let liquid = engines.get(parseLimit);
  if (!liquid) {
    liquid = new Liquid({ outputEscape: 'escape', ownPropertyOnly: true, strictFilters: true, renderLimit: 200, parseLimit });
    engines.set(parseLimit, liquid);
  }
  return liquid;
}

export interface PreviewFields {
  name: string;
  title: string;
  email: string;
  phone: string;
  mobile: string;
  department: string;
}

export async function renderPreview(templateHtml: string, user: PreviewFields, orgName: string, parseLimit: number): Promise<string> {
  return engine(parseLimit).parseAndRender(templateHtml, { user, org: { name: orgName }, pixel_url: '' }) as Promise<string>;
}
