// Rendering a user's signature. Hot path: users, templates and parsed templates come from the
// caches declared in src/cache/namespaces.ts, and the rendered output is cached by (template
// version, user version, org version), so it is never stale.
import type { Caches } from '../cache/namespaces.ts';
import { Batcher } from '../store/batcher.ts';
import type { Template } from 'liquidjs';
import type { Db } from '../store/db.ts';
import type { TemplateRow, UserRow } from '../store/schema.ts';
import { usersRepo } from '../store/repositories/users.ts';
import { templatesRepo } from '../store/repositories/templates.ts';
import { AppError, notFound } from '../errors.ts';
import type { OrgService } from '../orgs/service.ts';
import { htmlLiquid, parseTemplate, renderTemplate, textLiquid } from './liquid.ts';
import { renderWarnings, sanitizeRendered } from './email-html.ts';
import { compileTemplate } from './compile.ts';

export interface Rendered {
  userId: string;
  templateId: string | null;
  html: string;
  text: string;
  bytes: number;
  warnings: string[];
}

export function createRenderService(deps: { db: Db; caches: Caches; orgs: OrgService; baseUrl: string; renderLimitBytes: number }) {
  const { db } = deps;
  const { renderUsers: users, templates, defaultTemplates: defaults, parsedTemplates: parsed, renderOutputs: outputs } = deps.caches;

  // Users missed by the cache while a query runs are read together in the next one (the first
  // render of many users, e.g. a signature roll-out, is otherwise one query per user).
  const userLoads = new Batcher<{ orgId: string; userId: string }, UserRow | undefined>(async (wanted) => {
    const found = new Map<string, UserRow>();
    for (const orgId of new Set(wanted.map((w) => w.orgId))) {
      const ids = wanted.filter((w) => w.orgId === orgId).map((w) => w.userId);
      for (const row of await usersRepo.findMany(db, orgId, ids)) found.set(`${row.org_id}:${row.id}`, row);
    }
    return wanted.map((w) => ({ ok: true, value: found.get(`${w.orgId}:${w.userId}`) }));
  }, 500);

  // Cache keys carry the org: a lookup by another org's key never finds (nor hides) this org's rows.
  async function userOf(orgId: string, userId: string): Promise<UserRow> {
    const user = await users.get(`${orgId}:${userId}`, () => userLoads.submit({ orgId, userId }));
    if (!user) throw notFound('User');
    return user;
  }

  async function templateOf(orgId: string, templateId: string | undefined): Promise<TemplateRow> {
    let id = templateId;
    if (!id) {
      const found = await defaults.get(orgId, async () => ({ templateId: (await templatesRepo.findDefault(db, orgId))?.id ?? null }));
      if (!found?.templateId) throw new AppError('NOT_FOUND', 'This organisation has no default template: create one, or send a templateId.');
      id = found.templateId;
    }
    const template = await templates.get(`${orgId}:${id}`, () => templatesRepo.find(db, orgId, id));
    if (!template) throw notFound('Template');
    return template;
  }

  function parsedOf(t: { id: string; version: number; html_prepared: string; text: string }) {
    const key = `${t.id}:${t.version}`;
    let p = parsed.get(key);
    if (!p) {
      p = { html: parseTemplate(t.html_prepared, 'html'), text: parseTemplate(t.text, 'text') };
      parsed.set(key, p);
    }
    return p;
  }

  async function produce(p: { html: Template[]; text: Template[] }, user: UserRow, orgName: string, templateId: string | null): Promise<Rendered> {
    const scope = {
      user: { name: user.name, title: user.title, email: user.email, phone: user.phone, mobile: user.mobile, department: user.department },
      org: { name: orgName },
      pixel_url: `${deps.baseUrl}/v1/p/${user.id}`,
    };
    const raw = await renderTemplate(p.html, htmlLiquid, scope, 'html');
    const html = sanitizeRendered(raw);
    const text = await renderTemplate(p.text, textLiquid, scope, 'text');
    const bytes = Buffer.byteLength(html, 'utf8');
    if (bytes > deps.renderLimitBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `The rendered signature is ${bytes} bytes, over the limit of ${deps.renderLimitBytes} bytes: shrink the template.`, {
        details: { bytes, limitBytes: deps.renderLimitBytes },
      });
    }
    const warnings = renderWarnings(html);
    if (/<img\b[^>]*src=["']?data:/i.test(raw)) warnings.push('An embedded (base64) image was removed: it breaks in Gmail; host it instead.');
    return { userId: user.id, templateId, html, text, bytes, warnings };
  }

  return {
    async render(orgId: string, userId: string, templateId?: string): Promise<Rendered> {
      const [user, template, org] = await Promise.all([userOf(orgId, userId), templateOf(orgId, templateId), deps.orgs.require(orgId)]);
      const key = `${template.id}:${template.version}:${user.id}:${user.version}:${org.version}`;
      const hit = outputs.get(key);
      if (hit) return hit;
      const result = await produce(parsedOf(template), user, org.name, template.id);
      outputs.set(key, result);
      return result;
    },

    /** Renders an unsaved template for the editor (nothing cached). */
    async preview(orgId: string, userId: string, source: { html: string; text: string }): Promise<Rendered> {
      const [user, org] = await Promise.all([userOf(orgId, userId), deps.orgs.require(orgId)]);
      const { parsed, warnings } = await compileTemplate(source);
      const result = await produce(parsed, user, org.name, null);
      return { ...result, warnings: [...warnings, ...result.warnings] };
    },
  };
}

export type RenderService = ReturnType<typeof createRenderService>;
