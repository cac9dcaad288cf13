// Gmail as a deployment target (src/deployments/target.ts): a push writes the signature into the
// user's primary send-as address, acting as the user with the connection's key.
import type { DeploymentOutcome, DeploymentTarget } from '../deployments/module.ts';
import type { GoogleClient, GoogleCredentials } from './client.ts';
import { GoogleError } from './errors.ts';

/** Gmail refuses signatures longer than this: 10,000 characters. */
export const GMAIL_SIGNATURE_MAX_CHARS = 10_000;

/** Gmail for one connection (its key opened for the push). */
export function gmailTarget(client: Pick<GoogleClient, 'patchSignature'>, creds: GoogleCredentials): DeploymentTarget {
  return {
    name: 'gmail',
    maxChars: GMAIL_SIGNATURE_MAX_CHARS,
    async deploy(user, signature, signal): Promise<DeploymentOutcome> {
      try {
        await client.patchSignature(creds, user.email, signature.html, signal);
      } catch (err) {
        // A 429/5xx past the client's retries is the job queue's to retry.
        if (!(err instanceof GoogleError) || err.retryable) throw err;
        if (err.kind === 'unknown_user') return { state: 'skipped', reason: 'not_in_directory' };
        if (err.kind === 'too_long') return { state: 'skipped', reason: 'too_long' };
        // A refusal of the key or of the delegation is the same for every user: the push stops there.
        const stop = err.kind === 'delegation' || err.kind === 'key_invalid';
        return { state: 'failed', error: err.message, ...(stop ? { stop: err } : {}) };
      }
      return { state: 'deployed', contentHash: signature.contentHash };
    },
  };
}
