// A template as the API answers it: the one place a templates row becomes the resource.
import type { TemplateRow, TemplateSource } from '../store/schema.ts';
import type { Design } from '../designer/module.ts';

export interface Template {
  templateId: string;
  orgId: string;
  name: string;
  html: string;
  text: string;
  /** `design`: html and text are compiled from `design`; `html`: written by hand (`design` is then history). */
  source: TemplateSource;
  design: Design | null;
  isDefault: boolean;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** The answer to a save: the template, plus what would not render as the admin may expect. */
export type SavedTemplate = Template & { warnings: string[] };

export function toTemplate(t: TemplateRow): Template {
  return {
    templateId: t.id,
    orgId: t.org_id,
    name: t.name,
    html: t.html,
    text: t.text,
    source: t.source,
    // Stored only after the design schema accepted it.
    design: t.design as Design | null,
    isDefault: t.is_default,
    version: t.version,
    createdAt: t.created_at.toISOString(),
    updatedAt: t.updated_at.toISOString(),
  };
}
