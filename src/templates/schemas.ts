import { z } from 'zod';
import { text, timestamp, uuid, versionField } from '../http/schemas.ts';
import { EXAMPLE } from '../http/examples.ts';

/** A template source's length, in characters (also shown by the dashboard's editor). */
export const TEMPLATE_SOURCE_MAX = 100_000;

const templateExample = {
  templateId: EXAMPLE.templateId,
  orgId: EXAMPLE.orgId,
  name: 'Standard',
  html: EXAMPLE.html,
  text: EXAMPLE.text,
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
export const savedTemplateSchema = templateSchema
  .extend({ warnings: z.array(z.string()).describe('e.g. variables no signature provides') })
  .meta({
    id: 'SavedTemplate',
    examples: [{ ...templateExample, warnings: [] }],
  });

export const templateCreateSchema = z
  .strictObject({
    name: fields.name,
    html: fields.html,
    text: fields.text.default(''),
    isDefault: fields.isDefault.optional().describe('default: true when the org has no default template yet'),
  })
  .meta({ examples: [{ name: 'Standard', html: EXAMPLE.html, text: EXAMPLE.text }] });

export const templatePatchSchema = z
  .strictObject({
    version: versionField,
    name: fields.name.optional(),
    html: fields.html.optional(),
    text: fields.text.optional(),
    isDefault: fields.isDefault.optional(),
  })
  .meta({ examples: [{ version: 2, name: 'Standard (2026)' }] });

export const templateParams = z.object({ orgId: uuid, templateId: uuid });
