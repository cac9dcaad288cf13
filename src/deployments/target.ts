// A per-user deployment target: a place a user's signature goes to reach their mail
// (docs/google-workspace.md, docs/outlook.md): Gmail, where a push writes it into the send-as
// settings (src/google/gmail-target.ts); the Outlook add-in, which fetches it on each compose
// (src/outlook/addin-target.ts); the SMTP gateway to come, which stamps it on each message. Each says its
// name in `deployments`, the longest signature it takes, and how it deploys one; the steps before
// (the billing gate, the render, the length) and the row an outcome leaves are the same for all and
// live here.
import { createHash } from 'node:crypto';
import { AppError } from '../kernel/errors.ts';
import type { DeploymentTarget as TargetName } from '../store/schema.ts';
import type { DeploymentWrite } from '../store/repositories/deployments.ts';
import type { Rendered } from '../kernel/rendered.ts';
import type { DeploymentSkipReason } from './service.ts';

/** A user's signature, rendered for a target, with the hash that says whether the target holds it already. */
export interface Signature {
  html: string;
  text: string;
  contentHash: string;
}

/** What deploying a user's signature to a target came to. */
export type DeploymentOutcome =
  | { state: 'deployed'; contentHash: string }
  | { state: 'skipped'; reason: DeploymentSkipReason }
  /** `stop`: a refusal that is the same for every user (a revoked key); the run records this one and ends with it. */
  | { state: 'failed'; error: string; stop?: unknown };

export interface DeploymentTarget {
  /** What `deployments.target` holds for it. */
  readonly name: TargetName;
  /** The longest signature it takes, in characters of HTML; a longer one is skipped `too_long`. */
  readonly maxChars: number;
  /**
   * Puts the signature where the user's mail picks it up (Gmail: their send-as settings; the
   * add-in: the answer it inserts, so handing it over is the deployment). Throws what is worth
   * another try later (the job queue's retry); a refusal for this user is an outcome.
   */
  deploy(user: { id: string; email: string }, signature: Signature, signal?: AbortSignal): Promise<DeploymentOutcome>;
}

/** The hash a deployment records for what it deployed. */
export const contentHash = (html: string) => createHash('sha256').update(html).digest('base64url');

export type Prepared =
  | { state: 'ready'; signature: Signature }
  /** `cause`: the render's own refusal, when the render refused it (over the render limit). */
  | { state: 'skipped'; reason: 'payment_required' | 'too_long'; chars?: number; cause?: AppError };

/**
 * The user's signature as the target would take it, or why it is skipped: the org past its grace
 * period (`blocked`, billing/gate.ts) renders nothing; a render over the render limit, or one
 * longer than the target takes, is too long.
 */
export async function prepareSignature(
  target: Pick<DeploymentTarget, 'maxChars'>,
  render: (orgId: string, userId: string) => Promise<Rendered>,
  input: { orgId: string; userId: string; blocked: boolean },
): Promise<Prepared> {
  if (input.blocked) return { state: 'skipped', reason: 'payment_required' };
  let rendered: Rendered;
  try {
    rendered = await render(input.orgId, input.userId);
  } catch (err) {
    if (err instanceof AppError && err.code === 'PAYLOAD_TOO_LARGE') return { state: 'skipped', reason: 'too_long', cause: err };
    throw err;
  }
  if (rendered.html.length > target.maxChars) return { state: 'skipped', reason: 'too_long', chars: rendered.html.length };
  return { state: 'ready', signature: { html: rendered.html, text: rendered.text, contentHash: contentHash(rendered.html) } };
}

/** The row an outcome leaves in `deployments` for the user and target. */
export function deploymentWrite(target: TargetName, orgId: string, userId: string, outcome: DeploymentOutcome, at: Date): DeploymentWrite {
  return {
    orgId,
    userId,
    target,
    state: outcome.state,
    reason: outcome.state === 'skipped' ? outcome.reason : null,
    error: outcome.state === 'failed' ? outcome.error : null,
    ...(outcome.state === 'deployed' ? { deployed: { contentHash: outcome.contentHash, at } } : {}),
  };
}
