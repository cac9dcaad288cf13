import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { templatesRepo } from '../store/repositories/templates.ts';
import { decodeCursor, toPage, type Page, type PageRequest } from '../store/pagination.ts';
import { versionMismatch, type VersionCheck } from '../store/conditional.ts';
import { notFound } from '../kernel/errors.ts';
import { recordAudit, changedFields, type WriteContext } from '../audit/record.ts';
import type { Invalidate } from '../cache/namespaces.ts';
import { toTemplate, type SavedTemplate, type Template } from './resource.ts';
import { AppError } from '../kernel/errors.ts';
import type { Design } from '../designer/module.ts';
import type { TemplateSource } from '../store/schema.ts';
import { compileForOrg } from './design.ts';

export interface TemplateInput {
  name: string;
  /** Hand-written source; or `design`, compiled into both. */
  html?: string | undefined;
  text?: string | undefined;
  design?: Design | undefined;
  isDefault?: boolean | undefined;
}

export type TemplatePatch = Partial<TemplateInput>;

/** The source a save stores: compiled from a design, or as written. */
interface Source {
  html: string;
  text: string;
  source: TemplateSource;
  /** The compiler's warnings (a missing or blurry image); the save adds its own. */
  warnings: string[];
}

export function createTemplateService(deps: {
  db: Db;
  /** Checks and prepares the source (in the render worker pool); refuses with 400 naming the field. */
  compile: (input: { orgId: string; html: string; text: string }) => Promise<{ htmlPrepared: string; warnings: string[] }>;
  invalidate: Invalidate;
  /** `{base_url}`: compiled designs link the hosted social icons and the org's images under it. */
  baseUrl: string;
}) {
  const { db, invalidate } = deps;

  /**
   * Checks and prepares the source through the template pipeline. For a design, what the pipeline
   * refuses (Liquid in an html block) is named as the design's: the person never wrote that html.
   */
  async function prepare(orgId: string, source: Source): Promise<{ htmlPrepared: string; warnings: string[] }> {
    try {
      const { htmlPrepared, warnings } = await deps.compile({ orgId, html: source.html, text: source.text });
      return { htmlPrepared, warnings: [...source.warnings, ...warnings] };
    } catch (err) {
      if (source.source !== 'design' || !(err instanceof AppError) || err.code !== 'BAD_REQUEST') throw err;
      const message = err.message.replace(/^body\.(html|text): /, '');
      throw new AppError('BAD_REQUEST', `body.design: the compiled design is refused (check its html blocks): ${message}`, {
        details: { ...err.details, field: 'body.design' },
      });
    }
  }

  async function fromDesign(orgId: string, design: Design): Promise<Source> {
    const compiled = await compileForOrg(db, orgId, design, deps.baseUrl);
    return { html: compiled.html, text: compiled.text, source: 'design', warnings: compiled.warnings };
  }

  return {
    /** A design's html, text and warnings, without saving anything (the designer's preview). */
    async compileDesign(orgId: string, design: Design): Promise<{ html: string; text: string; warnings: string[] }> {
      const source = await fromDesign(orgId, design);
      const { warnings } = await prepare(orgId, source);
      return { html: source.html, text: source.text, warnings };
    },

    async get(orgId: string, templateId: string): Promise<Template> {
      const template = await templatesRepo.find(db, orgId, templateId);
      if (!template) throw notFound('Template');
      return toTemplate(template);
    },

    async list(orgId: string, page: PageRequest): Promise<Page<Template>> {
      const rows = await templatesRepo.list(db, orgId, decodeCursor(page.cursor), page.limit);
      return toPage(rows, page.limit, (r) => r.seq, toTemplate);
    },

    async create(ctx: WriteContext, input: TemplateInput): Promise<SavedTemplate> {
      const source = input.design
        ? await fromDesign(ctx.orgId, input.design)
        : { html: input.html ?? '', text: input.text ?? '', source: 'html' as const, warnings: [] };
      const { htmlPrepared, warnings } = await prepare(ctx.orgId, source);
      const row = await db.transaction().execute(async (tx) => {
        if (input.isDefault !== false) await templatesRepo.lockDefault(tx, ctx.orgId);
        const isDefault = input.isDefault ?? !(await templatesRepo.findDefault(tx, ctx.orgId));
        if (isDefault) await templatesRepo.clearDefault(tx, ctx.orgId);
        const row = await templatesRepo.insert(tx, {
          id: randomUUID(),
          org_id: ctx.orgId,
          name: input.name,
          html: source.html,
          text: source.text,
          html_prepared: htmlPrepared,
          design: input.design ? JSON.stringify(input.design) : null,
          source: source.source,
          is_default: isDefault,
        });
        await recordAudit(tx, ctx, { action: 'template.create', targetId: row.id, changes: changedFields(input) });
        return row;
      });
      invalidate.templateChanged(ctx.orgId, row.id);
      return { ...toTemplate(row), warnings };
    },

    async update(ctx: WriteContext, templateId: string, check: VersionCheck, patch: TemplatePatch): Promise<SavedTemplate> {
      let compiled: { htmlPrepared: string; warnings: string[] } | undefined;
      let source: Source | undefined;
      if (patch.design !== undefined) {
        source = await fromDesign(ctx.orgId, patch.design);
      } else if (patch.html !== undefined || patch.text !== undefined) {
        const current = await templatesRepo.find(db, ctx.orgId, templateId);
        if (!current) throw notFound('Template');
        // A hand edit: the template is its html from now on; the last design stays as history.
        source = { html: patch.html ?? current.html, text: patch.text ?? current.text, source: 'html', warnings: [] };
      }
      if (source) compiled = await prepare(ctx.orgId, source);
      const row = await db.transaction().execute(async (tx) => {
        const { isDefault, design, html: _html, text: _text, ...rest } = patch;
        // Before the update (one default per org is a unique index); a failed update rolls it back.
        if (isDefault) {
          await templatesRepo.lockDefault(tx, ctx.orgId);
          await templatesRepo.clearDefault(tx, ctx.orgId, templateId);
        }
        // html and text were compiled from the version read above; the version check makes sure
        // the other part is still that version's.
        const updated = await templatesRepo.update(tx, ctx.orgId, templateId, check, {
          ...rest,
          ...(source && compiled ? { html: source.html, text: source.text, source: source.source, html_prepared: compiled.htmlPrepared } : {}),
          ...(design ? { design: JSON.stringify(design) } : {}),
          ...(isDefault !== undefined ? { is_default: isDefault } : {}),
        });
        if (!updated) throw versionMismatch('Template', await templatesRepo.find(tx, ctx.orgId, templateId), check);
        await recordAudit(tx, ctx, { action: 'template.update', targetId: templateId, changes: changedFields(patch) });
        return updated;
      });
      invalidate.templateChanged(ctx.orgId, templateId);
      return { ...toTemplate(row), warnings: compiled?.warnings ?? [] };
    },

    async remove(ctx: WriteContext, templateId: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        const deleted = await templatesRepo.softDelete(tx, ctx.orgId, templateId);
        if (!deleted) throw notFound('Template');
        await recordAudit(tx, ctx, { action: 'template.delete', targetId: templateId, changes: ['deletedAt'] });
      });
      invalidate.templateChanged(ctx.orgId, templateId);
    },
  };
}

export type TemplateService = ReturnType<typeof createTemplateService>;
