// Starter templates: the designs of src/designer/starters.ts, compiled. A new org gets the first
// (Classic) as its default template, and the gallery (`GET /v1/orgs/{orgId}/templates/starters`)
// offers them all, each with its design, its compiled html and text, and a thumbnail.
//
// What the compiler writes is already in the form that saving it through the template checks
// gives (`html_prepared` = `html`: tables, inline styles, self-closed void elements);
// src/designer/compile.test.ts and test/starters.test.ts prove it, so an org gets its starter
// without the render threads (the CLI has none).
import { decodeCursor, toPage, type Page, type PageRequest } from '../store/pagination.ts';
import { compileDesign } from '../designer/module.ts';
import type { Design } from '../designer/module.ts';
import { STARTER_DESIGNS, type StarterDesign } from '../designer/module.ts';

export interface Starter {
  starterId: string;
  name: string;
  description: string;
  design: Design;
  html: string;
  text: string;
  /** `{base_url}/v1/starters/{starterId}/thumbnail.png`: a picture of it, for the gallery. */
  thumbnailUrl: string;
}

const compiled = new Map<string, Starter[]>();

function compileStarter(s: StarterDesign, baseUrl: string): Starter {
  // A starter names no org image (a new org has none), so it compiles without the org's images.
  const out = compileDesign(s.design, { baseUrl, images: new Map() });
  return {
    starterId: s.starterId,
    name: s.name,
    description: s.description,
    design: s.design,
    html: out.html,
    text: out.text,
    thumbnailUrl: `${baseUrl}/v1/starters/${s.starterId}/thumbnail.png`,
  };
}

/** Every starter compiled for this service's URL (the social icons and thumbnails live under it); made once. */
export function starters(baseUrl: string): readonly Starter[] {
  const base = baseUrl.replace(/\/$/, '');
  let list = compiled.get(base);
  if (!list) {
    list = STARTER_DESIGNS.map((s) => compileStarter(s, base));
    compiled.set(base, list);
  }
  return list;
}

/**
 * The template a new org gets: the Classic design, compiled. Classic has no block that links
 * under `{base_url}` (no social icons, no images), so its html is the same whatever the service's
 * URL (test/starters.test.ts checks it), and the CLI, which creates orgs too, needs none.
 */
const classic = STARTER_DESIGNS[0]!;
const classicCompiled = compileDesign(classic.design, { baseUrl: '', images: new Map() });
export const DEFAULT_STARTER = { name: classic.name, design: classic.design, html: classicCompiled.html, text: classicCompiled.text };

/** A page of the gallery; a cursor holds the index of the last starter of its page. */
export function listStarters(page: PageRequest, baseUrl: string): Page<Starter> {
  const after = decodeCursor(page.cursor);
  const start = after === undefined ? 0 : Number(after) + 1;
  const rows = starters(baseUrl)
    .slice(start, start + page.limit + 1)
    .map((s, i) => ({ s, position: String(start + i) }));
  return toPage(
    rows,
    page.limit,
    (r) => r.position,
    (r): Starter => ({ ...r.s }),
  );
}
