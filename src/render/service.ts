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
import { TemplateRefusal, type RenderPool } from './pool.ts';
import type { Compose, RuleService } from '../rules/module.ts';
import type { CampaignBanner, CampaignService } from '../campaigns/module.ts';
import type { ClickTarget, PixelCampaign } from '../clicks/module.ts';
import { resolveTrackMarks } from './tracking.ts';
import { defuseTrackMarks } from '../lib/track-mark.ts';
import { unchangingAnswer } from '../kernel/unchanging.ts';

import type { Rendered } from '../kernel/rendered.ts';

export type { Rendered };

/** Told of every signature served (not previews); returns at once. */
export type RenderedListener = (orgId: string, rendered: Rendered, correlationId: string | null) => void;

// The cached outputs that show their campaign's banner (the template has `campaign.banner` or the
// design's campaign block): only their serving counts an impression, and only their banner's link
// counts clicks for the campaign (DECISIONS wave 3: "Impressions are signatures served with the
// campaign's banner"). A render for someone in a campaign's audience whose template leaves the banner
// out counts for no campaign.
const showsBanner = new WeakSet<Rendered>();

/** A signature served, and the campaign whose banner it shows (null: none), which the caller counts or not. */
type Served = { rendered: Rendered; campaign: CampaignBanner | null };

/**
 * A warm render without a promise: every row it needs, the org's campaigns (and the groups their
 * audiences need) and the output held by the caches. Undefined sends the caller the long way
 * (renderFor), which decides the same from the same caches and reads what is missing. Most renders
 * are warm, and the awaits of the long way were about a quarter of a warm render's allocations.
 */
function warmRenders(deps: Pick<Parameters<typeof createRenderService>[0], 'caches' | 'orgs' | 'rules' | 'campaigns' | 'metrics'>) {
  const { renderUsers: users, templates, defaultTemplates: defaults, renderOutputs: outputs } = deps.caches;

  /** templateOf's answer from what the caches hold; undefined when something is not held (or is missing). */
  function cachedTemplateOf(user: UserRow, templateId: string | undefined, compose: Compose): { template: TemplateRow; ruleId: string | null } | undefined {
    const held = (id: string) => templates.peek(`${user.org_id}:${id}`);
    if (templateId) {
      const template = held(templateId);
      return template ? { template, ruleId: null } : undefined;
    }
    const choice = deps.rules.cachedTemplateFor(user, compose);
    if (!choice) return undefined;
    if (choice.templateId) {
      const chosen = held(choice.templateId);
      if (chosen) return { template: chosen, ruleId: choice.ruleId };
      // Not held: read it the long way. Known to be gone (null): the default, as templateOf does.
      if (chosen === undefined) return undefined;
    }
    const found = defaults.peek(user.org_id);
    const template = found?.templateId ? held(found.templateId) : undefined;
    return template ? { template, ruleId: null } : undefined;
  }

  // The answer of a cached output for the rule that chose it: one object while both hold, so that
  // its JSON is made once (src/http/serializer.ts). Neither the output nor the answer is changed.
  const answers = new WeakMap<Rendered, Rendered>();
  function answerOf(hit: Rendered, ruleId: string | null): Rendered {
    let answer = answers.get(hit);
    if (answer?.ruleId !== ruleId) {
      answer = unchangingAnswer({ ...hit, ruleId });
      answers.set(hit, answer);
    }
    return answer;
  }

  return (orgId: string, userId: string, templateId: string | undefined, compose: Compose): Served | undefined => {
    const user = users.peek(`${orgId}:${userId}`);
    const org = user ? deps.orgs.cached(orgId) : undefined;
    if (!user || !org) return undefined;
    const campaign = deps.campaigns ? deps.campaigns.cachedBannerFor(user) : null;
    if (campaign === undefined) return undefined;
    const chosen = cachedTemplateOf(user, templateId, compose);
    if (!chosen) return undefined;
    const { template, ruleId } = chosen;
    // renderFor's key.
    const hit = outputs.get(`${template.id}:${template.version}:${user.id}:${user.version}:${org.version}:${campaign?.key ?? '-'}`);
    if (!hit) return undefined;
    deps.metrics?.renderCache(true);
    return { rendered: answerOf(hit, ruleId), campaign: showsBanner.has(hit) ? campaign : null };
  };
}

export function createRenderService(deps: {
  db: Db;
  caches: Caches;
  orgs: OrgService;
  rules: Pick<RuleService, 'templateFor' | 'cachedTemplateFor'>;
  /** The active campaign's banner for a user (src/campaigns/); absent: no campaigns. */
  campaigns?: Pick<CampaignService, 'bannerFor' | 'cachedBannerFor'>;
  /** Counts a banner served (campaigns/impressions.ts); previews do not call it. */
  countImpression?: (orgId: string, campaignId: string, variant: number) => void;
  /** The signed click URL of a link (src/clicks/); without it, tracked links render as they are. */
  trackUrl?: (target: ClickTarget) => string;
  /** The pixel's signed `c` parameter of a campaign (src/clicks/token.ts). */
  pixelCampaign?: (p: PixelCampaign) => string;
  pool: RenderPool;
  baseUrl: string;
  renderLimitBytes: number;
  metrics?: Pick<Metrics, 'renderCache'>;
  /**
   * Told of every signature served (not previews): the `signature.rendered` webhook event
   * (src/outbound-webhooks/rendered.ts). It must return at once: renders do not wait for it.
   */
  onRendered?: RenderedListener;
}) {
  const { db } = deps;
  const { renderUsers: users, templates, defaultTemplates: defaults, renderOutputs: outputs, renderRefusals: refusals } = deps.caches;
  const cachedRenderFor = warmRenders(deps);
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

  async function defaultOf(orgId: string): Promise<TemplateRow> {
    const found = await defaults.get(orgId, async () => ({ templateId: (await templatesRepo.findDefault(db, orgId))?.id ?? null }));
    if (!found?.templateId) throw new AppError('NOT_FOUND', 'This organisation has no default template: create one, or send a templateId.');
    const template = await templateById(orgId, found.templateId);
    if (!template) throw notFound('Template');
    return template;
  }

  const templateById = (orgId: string, id: string) => templates.get(`${orgId}:${id}`, () => templatesRepo.find(db, orgId, id));

  /** An explicit template, else the one the org's rules give this user (src/rules/), else the default. */
  async function templateOf(user: UserRow, templateId: string | undefined, compose: Compose): Promise<{ template: TemplateRow; ruleId: string | null }> {
    if (templateId) {
      const template = await templateById(user.org_id, templateId);
      if (!template) throw notFound('Template');
      return { template, ruleId: null };
    }
    const choice = await deps.rules.templateFor(user, compose);
    // A rule whose template was deleted since gives way to the default (the rule editor shows it).
    const chosen = choice.templateId ? await templateById(user.org_id, choice.templateId) : undefined;
    if (chosen) return { template: chosen, ruleId: choice.ruleId };
    return { template: await defaultOf(user.org_id), ruleId: null };
  }

  const imageUrl = (imageId: string | null) => (imageId ? `${deps.baseUrl.replace(/\/$/, '')}/v1/images/${imageId}` : '');
  // Everything here comes from the user row and the org row, whose versions key the output cache:
  // a change of any field (a new photo, the org's links) is a new version and a new render.
  const bannerOf = (user: UserRow) => (deps.campaigns ? deps.campaigns.bannerFor(user) : Promise.resolve(null));

  function scopeOf(user: UserRow, org: OrgWithUsage, campaign: CampaignBanner | null): Scope {
    // The person's and the org's own text can hold no track mark (lib/track-mark.ts).
    return {
      user: defuseTrackMarks({
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
      }),
      org: defuseTrackMarks({ name: org.name, website: org.website, address: org.address, social: org.social, logo_url: imageUrl(org.logo_image_id) }),
      campaign: campaign ? { banner: campaign.banner, text: campaign.text } : { banner: '', text: '' },
      pixel_url: pixelUrlOf(user, campaign),
    };
  }

  function pixelUrlOf(user: UserRow, campaign: CampaignBanner | null): string {
    // An open of a signature with a banner counts for its campaign: the pixel carries it, signed.
    const c =
      campaign && deps.pixelCampaign
        ? `?c=${deps.pixelCampaign({ orgId: user.org_id, campaignId: campaign.campaignId, variant: campaign.variant, userId: user.id })}`
        : '';
    return `${deps.baseUrl}/v1/p/${user.id}${c}`;
  }

  /** The signature and the campaign banner it shows (null: none), which the caller counts or not. */
  async function renderFor(orgId: string, userId: string, templateId: string | undefined, compose: Compose): Promise<Served> {
    const [user, org] = await Promise.all([userOf(orgId, userId), deps.orgs.require(orgId)]);
    const [{ template, ruleId }, campaign] = await Promise.all([templateOf(user, templateId, compose), bannerOf(user)]);
    // The campaign part changes when one starts, ends or changes for this user: a new key, a new render.
    const key = `${template.id}:${template.version}:${user.id}:${user.version}:${org.version}:${campaign?.key ?? '-'}`;
    const hit = outputs.get(key);
    // A refusal is remembered like an output: a signature past the limits for this user costs a
    // render thread's time once per version, however often it is asked for again (retries, a
    // client's loop), and the thread stays free for everyone else's work.
    const refused = hit ? undefined : refusals.get(key);
    deps.metrics?.renderCache(hit !== undefined || refused !== undefined);
    if (hit) return { rendered: { ...hit, ruleId }, campaign };
    if (refused) throw new AppError(refused.code, refused.message, refused.details ? { details: refused.details } : {});
    // Concurrent first renders of one signature (a mail burst from one user) share one task.
    let pending = producing.get(key);
    if (!pending) {
      const scope = scopeOf(user, org, campaign);
      pending = deps.pool
        .render({
          orgId,
          key: `${template.id}:${template.version}`,
          htmlPrepared: template.html_prepared,
          text: template.text,
          scope,
          limitBytes: deps.renderLimitBytes,
        })
        .then((rendered) => {
          const shown = campaign !== null && (rendered.html.includes(campaign.mark) || rendered.text.includes(campaign.mark));
          // Without its banner, the signature's open is no impression either: its pixel counts for no campaign.
          const html = campaign && !shown ? rendered.html.replaceAll(scope.pixel_url, pixelUrlOf(user, null)) : rendered.html;
          // The `track` filter's marks: the user's click URLs where the org counts clicks; the
          // banner's own link counts for its campaign, the design's other links for none.
          const urlOf = (destination: string) => {
            if (!deps.trackUrl || !org.click_tracking) return destination;
            const banner = shown && destination === campaign.destination ? campaign : null;
            return deps.trackUrl({ orgId, campaignId: banner?.campaignId ?? null, variant: banner?.variant ?? null, userId: user.id, destination });
          };
          const resolved = resolveTrackMarks(html, urlOf);
          // `bytes` are the answer's: its click URLs and its pixel are the final ones.
          const bytes = resolved === rendered.html ? rendered.bytes : Buffer.byteLength(resolved);
          const parts = { ...rendered, html: resolved, bytes, text: resolveTrackMarks(rendered.text, urlOf, false) };
          const result: Rendered = { userId: user.id, templateId: template.id, ruleId: null, ...parts };
          outputs.set(key, result);
          if (shown) showsBanner.add(result);
          return result;
        })
        .catch((err: unknown) => {
          if (err instanceof TemplateRefusal) refusals.set(key, { code: err.code, message: err.message, details: err.details });
          throw err;
        })
        .finally(() => producing.delete(key));
      producing.set(key, pending);
    }
    return pending.then((r) => ({ rendered: { ...r, ruleId }, campaign: showsBanner.has(r) ? campaign : null }));
  }

  return {
    /**
     * A signature served to a caller (`correlationId`: the request's, when one asked): with
     * `templateId` when given, else as the org's rules say for this kind of message.
     */
    async render(orgId: string, userId: string, templateId?: string, correlationId: string | null = null, compose: Compose = 'new'): Promise<Rendered> {
      const { rendered, campaign } = cachedRenderFor(orgId, userId, templateId, compose) ?? (await renderFor(orgId, userId, templateId, compose));
      if (campaign) deps.countImpression?.(orgId, campaign.campaignId, campaign.variant);
      deps.onRendered?.(orgId, rendered, correlationId);
      return rendered;
    },

    /** The same signature, looked at (the signature route's `preview=true`): no impression, no `signature.rendered`. */
    async look(orgId: string, userId: string, compose: Compose = 'new'): Promise<Rendered> {
      return (cachedRenderFor(orgId, userId, undefined, compose) ?? (await renderFor(orgId, userId, undefined, compose))).rendered;
    },

    /** Renders an unsaved template for the editor (nothing cached). */
    async preview(orgId: string, userId: string, source: { html: string; text: string }): Promise<Rendered> {
      const [user, org] = await Promise.all([userOf(orgId, userId), deps.orgs.require(orgId)]);
      const previewed = await deps.pool.preview({
        orgId,
        html: source.html,
        text: source.text,
        // The pixel of no one (not a user id: the pixel route counts nothing for it, src/tracking/service.ts).
        scope: { ...scopeOf(user, org, await bannerOf(user)), pixel_url: `${deps.baseUrl}/v1/p/preview` },
        limitBytes: deps.renderLimitBytes,
      });
      // Previews count nothing: tracked links show as they are.
      const parts = { ...previewed, html: resolveTrackMarks(previewed.html, (d) => d), text: resolveTrackMarks(previewed.text, (d) => d, false) };
      return { userId: user.id, templateId: null, ruleId: null, ...parts };
    },

    /** Loads the render threads ahead of the first template work (the server, at start). */
    warm() {
      return deps.pool.warm();
    },

    /** Prepares an org's template source for saving (templates/service.ts). */
    compile(source: { orgId: string; html: string; text: string }) {
      return deps.pool.compile(source);
    },
  };
}

export type RenderService = ReturnType<typeof createRenderService>;
