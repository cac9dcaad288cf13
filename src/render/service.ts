// Rendering a user's signature. Hot path: users and templates come from the caches declared in
// src/cache/namespaces.ts, and the rendered output is cached by (template version, user version,
// org version), so it is never stale. A cache hit is answered here on the main thread; a miss, and
// every save or preview, is CPU work on untrusted input and goes to the render worker pool
// (pool.ts), which keeps parsed templates per thread.
import type { Caches } from '../cache/namespaces.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { Batcher } from '../store/batcher.ts';
import type { Db } from '../store/db.ts';
import type { TemplateRow, UserRow } from '../store/schema.ts';
import { usersRepo } from '../store/repositories/users.ts';
import { templatesRepo } from '../store/repositories/templates.ts';
import { AppError, notFound } from '../kernel/errors.ts';
import type { OrgService } from '../orgs/module.ts';
import type { OrgWithUsage } from '../store/repositories/orgs.ts';
import type { Scope } from './compile.ts';
import type { RenderPool } from './pool.ts';
import type { Rendered } from '../kernel/rendered.ts';

export type { Rendered };

export function createRenderService(deps: {
  db: Db;
  caches: Caches;
  orgs: OrgService;
  pool: RenderPool;
  baseUrl: string;
  renderLimitBytes: number;
  metrics?: Pick<Metrics, 'renderCache'>;
}) {
  const { db } = deps;
  const { renderUsers: users, templates, defaultTemplates: defaults, renderOutputs: outputs } = deps.caches;
  // Renders under way, by output key: not a cache (an entry lives while its render runs).
  const producing = new Map<string, Promise<Rendered>>();

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

  const imageUrl = (imageId: string | null) => (imageId ? `${deps.baseUrl.replace(/\/$/, '')}/v1/images/${imageId}` : '');

  // Everything here comes from the user row and the org row, whose versions key the output cache:
  // a change of any field (a new photo, the org's links) is a new version and a new render.
  function scopeOf(user: UserRow, org: OrgWithUsage): Scope {
    return {
      user: {
        name: user.name,
        title: user.title,
        email: user.email,
        phone: user.phone,
        mobile: user.mobile,
        department: user.department,
        pronouns: user.pronouns,
        website: user.website,
        address: user.address,
        photo_url: imageUrl(user.photo_image_id),
        social: user.social,
        attributes: user.attributes,
      },
      org: { name: org.name, website: org.website, address: org.address, social: org.social, logo_url: imageUrl(org.logo_image_id) },
      campaign: { banner: '', text: '' },
      pixel_url: `${deps.baseUrl}/v1/p/${user.id}`,
    };
  }

  return {
    async render(orgId: string, userId: string, templateId?: string): Promise<Rendered> {
      const [user, template, org] = await Promise.all([userOf(orgId, userId), templateOf(orgId, templateId), deps.orgs.require(orgId)]);
      const key = `${template.id}:${template.version}:${user.id}:${user.version}:${org.version}`;
      const hit = outputs.get(key);
      deps.metrics?.renderCache(hit !== undefined);
      if (hit) return hit;
      // Concurrent first renders of one signature (a mail burst from one user) share one task.
      let pending = producing.get(key);
      if (!pending) {
        pending = deps.pool
          .render({
            key: `${template.id}:${template.version}`,
            htmlPrepared: template.html_prepared,
            text: template.text,
            scope: scopeOf(user, org),
            limitBytes: deps.renderLimitBytes,
          })
          .then((parts) => {
            const result = { userId: user.id, templateId: template.id, ...parts };
            outputs.set(key, result);
            return result;
          })
          .finally(() => producing.delete(key));
        producing.set(key, pending);
      }
      return pending;
    },

    /** Renders an unsaved template for the editor (nothing cached). */
    async preview(orgId: string, userId: string, source: { html: string; text: string }): Promise<Rendered> {
      const [user, org] = await Promise.all([userOf(orgId, userId), deps.orgs.require(orgId)]);
      const parts = await deps.pool.preview({ html: source.html, text: source.text, scope: scopeOf(user, org), limitBytes: deps.renderLimitBytes });
      return { userId: user.id, templateId: null, ...parts };
    },

    /** Loads the render threads ahead of the first template work (the server, at start). */
    warm() {
      return deps.pool.warm();
    },

    /** Prepares a template's source for saving (templates/service.ts). */
    compile(source: { html: string; text: string }) {
      return deps.pool.compile(source);
    },
  };
}

export type RenderService = ReturnType<typeof createRenderService>;
