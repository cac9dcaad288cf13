import { z } from 'zod';
import { text, timestamp, uuid, versionField } from '../http/schemas.ts';
import { EXAMPLE } from '../http/examples.ts';
import { designSchema as designDocument } from '../designer/module.ts';
import { STARTER_DESIGNS } from '../designer/module.ts';

/** The design document (docs/designer.md), as a component of the OpenAPI document. */
export const designSchema = designDocument.meta({
  id: 'Design',
  description: "A signature described as blocks (version 1); the service compiles it into the template's html and text (docs/designer.md).",
  examples: [STARTER_DESIGNS[0]!.design],
});

/** A template source's length, in characters (also shown by the dashboard's editor). */
export const TEMPLATE_SOURCE_MAX = 100_000;

const templateExample = {
  templateId: EXAMPLE.templateId,
  orgId: EXAMPLE.orgId,
  name: 'Standard',
  html: EXAMPLE.html,
  text: EXAMPLE.text,
  source: 'html',
  design: null,
  isDefault: true,
  version: 2,
  createdAt: EXAMPLE.createdAt,
  updatedAt: EXAMPLE.updatedAt,
};

export const templateSchema = z
  .object({
    templateId: uuid,
    orgId: uuid,
    name: z.string(),
    html: z.string(),
    text: z.string(),
    source: z
      .enum(['html', 'design'])
      .describe('design: html and text are compiled from `design`; html: written by hand, and `design` (if any) is the last one, kept as history'),
    design: designSchema.nullable(),
    isDefault: z.boolean(),
    version: z.number().int(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({
    id: 'Template',
    examples: [templateExample],
  });

const fields = {
  name: text().trim().min(1).max(200),
  html: text().max(TEMPLATE_SOURCE_MAX).describe('Liquid template of the HTML signature'),
  text: text().max(TEMPLATE_SOURCE_MAX).describe('Liquid template of the plain-text signature'),
  isDefault: z.boolean().describe("the org's default template for rendering; at most one per org"),
};

/** The answer to a save: the template, plus what would not render as the admin may expect. */
export const savedTemplateSchema = templateSchema.extend({ warnings: z.array(z.string()).describe('e.g. variables no signature provides') }).meta({
  id: 'SavedTemplate',
  examples: [{ ...templateExample, warnings: [] }],
});

/** `design`, or hand-written `html`/`text`: never both in one request. */
function oneSource(v: { html?: string | undefined; text?: string | undefined; design?: unknown }, ctx: z.RefinementCtx, creating: boolean) {
  if (v.design !== undefined && (v.html !== undefined || v.text !== undefined)) {
    ctx.addIssue({ code: 'custom', path: [v.html !== undefined ? 'html' : 'text'], message: 'send either design or html/text, not both' });
  } else if (creating && v.design === undefined && v.html === undefined) {
    ctx.addIssue({ code: 'custom', path: ['html'], message: 'is required (or send design)' });
  }
}

export const templateCreateSchema = z
  .strictObject({
    name: fields.name,
    html: fields.html.optional(),
    text: fields.text.optional().describe('Liquid template of the plain-text signature (default: empty)'),
    design: designSchema.optional().describe('instead of html and text: compiled into them'),
    isDefault: fields.isDefault.optional().describe('default: true when the org has no default template yet'),
  })
  .superRefine((v, ctx) => oneSource(v, ctx, true))
  .meta({ examples: [{ name: 'Standard', html: EXAMPLE.html, text: EXAMPLE.text }] });

export const templatePatchSchema = z
  .strictObject({
    version: versionField,
    name: fields.name.optional(),
    html: fields.html.optional(),
    text: fields.text.optional(),
    design: designSchema.optional().describe("compiled into html and text; the template's source becomes design"),
    isDefault: fields.isDefault.optional(),
  })
  .superRefine((v, ctx) => oneSource(v, ctx, false))
  .meta({ examples: [{ version: 2, name: 'Standard (2026)' }] });

export const compileBodySchema = z.strictObject({ design: designSchema }).meta({ examples: [{ design: STARTER_DESIGNS[0]!.design }] });

export const compiledSchema = z
  .object({
    html: z.string().describe('Liquid: the template html the design compiles to'),
    text: z.string(),
    warnings: z.array(z.string()).describe("the compiler's (a missing or blurry image) and the save's (what a mail client will not show)"),
  })
  .meta({ id: 'CompiledDesign', examples: [{ html: EXAMPLE.html, text: EXAMPLE.text, warnings: [] }] });

export const templateParams = z.object({ orgId: uuid, templateId: uuid });
