import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.ts';
import { templatesRepo } from '../store/repositories/templates.ts';
import { decodeCursor, toPage, type Page, type PageRequest } from '../store/pagination.ts';
import { versionMismatch, type VersionCheck } from '../store/conditional.ts';
import { notFound } from '../errors.ts';
import { recordAudit, changedFields, type WriteContext } from '../audit/record.ts';
import type { Invalidate } from '../cache/namespaces.ts';
import { toTemplate, type SavedTemplate, type Template } from './resource.ts';

export interface TemplateInput {
  name: string;
  html: string;
  text: string;
  isDefault?: boolean | undefined;
}

export type TemplatePatch = Partial<TemplateInput>;

export function createTemplateService(deps: {
  db: Db;
  /** Checks and prepares the source (in the render worker pool); refuses with 400 naming the field. */
  compile: (input: { html: string; text: string }) => Promise<{ htmlPrepared: string; warnings: string[] }>;
  invalidate: Invalidate;
}) {
  const { db, invalidate } = deps;
  return {
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
      const { htmlPrepared, warnings } = await deps.compile(input);
      const row = await db.transaction().execute(async (tx) => {
        if (input.isDefault !== false) await templatesRepo.lockDefault(tx, ctx.orgId);
        const isDefault = input.isDefault ?? !(await templatesRepo.findDefault(tx, ctx.orgId));
        if (isDefault) await templatesRepo.clearDefault(tx, ctx.orgId);
        const row = await templatesRepo.insert(tx, {
          id: randomUUID(),
          org_id: ctx.orgId,
          name: input.name,
          html: input.html,
          text: input.text,
          html_prepared: htmlPrepared,
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
      if (patch.html !== undefined || patch.text !== undefined) {
        const current = await templatesRepo.find(db, ctx.orgId, templateId);
        if (!current) throw notFound('Template');
        compiled = await deps.compile({ html: patch.html ?? current.html, text: patch.text ?? current.text });
      }
      const row = await db.transaction().execute(async (tx) => {
        const { isDefault, ...rest } = patch;
        // Before the update (one default per org is a unique index); a failed update rolls it back.
        if (isDefault) {
          await templatesRepo.lockDefault(tx, ctx.orgId);
          await templatesRepo.clearDefault(tx, ctx.orgId, templateId);
        }
        // html and text were compiled from the version read above; the version check makes sure
        // the other part is still that version's.
        const updated = await templatesRepo.update(tx, ctx.orgId, templateId, check, {
          ...rest,
          ...(compiled ? { html_prepared: compiled.htmlPrepared } : {}),
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
