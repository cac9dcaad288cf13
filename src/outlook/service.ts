// The Outlook add-in of an org: its key (shown to admins, rotated by them), its manifest, and the
// signature the add-in asks for on each compose event.
import type { Caches } from '../cache/namespaces.ts';
import type { Db } from '../store/db.ts';
import { markSignature } from '../render/module.ts';
import { outlookRepo } from '../store/repositories/outlook.ts';
import type { OutlookAddinRow } from '../store/schema.ts';
import { AppError, notFound, unauthorized } from '../kernel/errors.ts';
import { recordAudit, type WriteContext } from '../audit/record.ts';
import type { OrgService } from '../orgs/module.ts';
import type { RenderService } from '../render/module.ts';
import { graceExpired, planFacts } from '../billing/module.ts';
import type { Compose } from '../rules/module.ts';
import { ADDIN_KEY_PATTERN, hashAddinKey, newAddinKey } from './addin-key.ts';
import { buildManifest } from './manifest.ts';
import { SecretError, sealedContext, type SecretBox } from '../secrets/module.ts';
import type { FetchRecorder } from './fetch-recorder.ts';
import { prepareSignature, type DeploymentOutcome } from '../deployments/module.ts';
import { OUTLOOK_SIGNATURE_LIMIT, outlookTarget } from './addin-target.ts';

export { OUTLOOK_SIGNATURE_LIMIT } from './addin-target.ts';

export function createOutlookService(deps: {
  db: Db;
  caches: Caches;
  orgs: OrgService;
  render: RenderService;
  secrets: SecretBox;
  recorder: FetchRecorder;
  clock: () => Date;
  baseUrl: string;
  appUrl: string;
}) {
  const { db, caches, secrets, clock } = deps;
  const context = (orgId: string) => sealedContext('outlook', orgId);
  /** The key as it was made; a sealed value this SECRETS_KEY cannot open is a 503 saying why. */
  const openKey = (row: OutlookAddinRow) => {
    try {
      return secrets.open(row.key_sealed, context(row.org_id));
    } catch (err) {
      if (err instanceof SecretError)
        throw new AppError('SERVICE_UNAVAILABLE', `The add-in key cannot be read: ${err.message} Or rotate the key.`, { internal: err });
      throw err;
    }
  };

  const freshKey = (orgId: string) => {
    const key = newAddinKey();
    return { key, hash: hashAddinKey(key), sealed: secrets.seal(key, context(orgId)) };
  };

  /** The org's add-in row, made (with a new key) the first time an admin acts on it (a rotation or
   * a manifest download); reading the integration makes nothing (DECISIONS wave 3). */
  async function ensure(ctx: WriteContext): Promise<OutlookAddinRow> {
    const existing = await outlookRepo.find(db, ctx.orgId);
    if (existing) return existing;
    const key = freshKey(ctx.orgId);
    return db.transaction().execute(async (tx) => {
      const { row, created } = await outlookRepo.ensure(tx, ctx.orgId, key);
      if (created) await recordAudit(tx, ctx, { action: 'outlook.key.create', targetId: ctx.orgId, changes: ['addinKey'] });
      return row;
    });
  }

  const manifestUrl = (orgId: string) => `${deps.baseUrl}/v1/orgs/${orgId}/integrations/outlook/manifest.xml`;
  const present = (row: OutlookAddinRow) => ({
    addinKey: openKey(row) as string | null,
    manifestUrl: manifestUrl(row.org_id),
    lastFetchAt: row.last_fetch_at,
  });

  return {
    /** What an admin sees; `addinKey: null` until a rotation or a manifest download makes one. */
    async integration(orgId: string) {
      const row = await outlookRepo.find(db, orgId);
      return row ? present(row) : { addinKey: null, manifestUrl: manifestUrl(orgId), lastFetchAt: null };
    },

    /** A new key; the old one stops working at once here, within CACHE_TTL_MS on other instances. */
    async rotateKey(ctx: WriteContext) {
      await ensure(ctx);
      const key = freshKey(ctx.orgId);
      const rotated = await db.transaction().execute(async (tx) => {
        const result = await outlookRepo.rotate(tx, ctx.orgId, key, clock());
        if (!result) throw notFound('Outlook add-in');
        await recordAudit(tx, ctx, { action: 'outlook.key.rotate', targetId: ctx.orgId, changes: ['addinKey'] });
        return result;
      });
      caches.invalidate.addinKeyRotated(rotated.oldHash);
      return present(rotated.row);
    },

    async manifest(ctx: WriteContext): Promise<string> {
      const [row, org] = await Promise.all([ensure(ctx), deps.orgs.require(ctx.orgId)]);
      return buildManifest({
        addinId: row.org_id,
        keyVersion: row.key_version,
        orgName: org.name,
        baseUrl: deps.baseUrl,
        supportUrl: deps.appUrl,
        addinKey: openKey(row),
      });
    },

    /** The org whose add-in key this is; 401 for a missing, malformed, unknown or rotated key. */
    async orgOfKey(key: string | undefined): Promise<string> {
      if (!key || !ADDIN_KEY_PATTERN.test(key)) throw unauthorized('Missing or invalid add-in key (X-Addin-Key).');
      const hash = hashAddinKey(key);
      const entry = await caches.addinKeys.get(hash, async () => {
        const orgId = await outlookRepo.orgOfKey(db, hash);
        return orgId ? { orgId } : undefined;
      });
      if (!entry) throw unauthorized('Missing or invalid add-in key (X-Addin-Key).');
      return entry.orgId;
    },

    /**
     * The rendered signature of the org's live user with this address (404 otherwise, the same for
     * another org's user), gated past grace like every render, refused over Outlook's limit.
     */
    async signature(orgId: string, email: string, correlationId: string | null = null, compose: Compose = 'new'): Promise<{ html: string; text: string }> {
      // Not cached: one indexed query per compose (human-paced), and no cached address to outlive
      // a change of a user's email. The render itself comes from the render cache.
      const user = await outlookRepo.liveUserByEmail(db, orgId, email);
      if (!user) throw notFound('Sender');
      const record = (outcome: DeploymentOutcome) => deps.recorder.record({ orgId, userId: user.id, at: clock(), outcome });
      const org = await deps.orgs.require(orgId);
      const blocked = graceExpired(planFacts(org), clock());
      const prepared = await prepareSignature(outlookTarget, (o, u) => deps.render.render(o, u, undefined, correlationId, compose), {
        orgId,
        userId: user.id,
        blocked,
      });
      if (prepared.state === 'skipped') {
        record({ state: 'skipped', reason: prepared.reason });
        if (prepared.reason === 'payment_required') {
          throw new AppError('PAYMENT_REQUIRED', 'The subscription of this organisation has lapsed: signatures are not served until it is paid.', {
            details: { blockedBy: 'grace_expired' },
          });
        }
        // Over the render limit: the render's own answer.
        if (prepared.cause) throw prepared.cause;
        throw new AppError(
          'PAYLOAD_TOO_LARGE',
          `This signature is ${prepared.chars} characters long; Outlook accepts at most ${OUTLOOK_SIGNATURE_LIMIT}. Shorten the template.`,
          { details: { reason: 'too_long', chars: prepared.chars ?? null, limit: OUTLOOK_SIGNATURE_LIMIT } },
        );
      }
      const rendered = prepared.signature;
      record(await outlookTarget.deploy(user, rendered));
      // Marked, so that the SMTP gateway does not stamp a message the add-in signed (src/render/marker.ts).
      return { html: markSignature(rendered.html, user.id), text: rendered.text };
    },
  };
}

export type OutlookService = ReturnType<typeof createOutlookService>;
