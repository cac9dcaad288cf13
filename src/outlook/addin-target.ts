// The Outlook add-in as a deployment target (src/deployments/target.ts): the add-in fetches the
// signature on each compose event and inserts what it is answered, so answering it is the
// deployment (recorded off the request path, fetch-recorder.ts).
import type { DeploymentTarget } from '../deployments/module.ts';

/** Outlook refuses longer signatures (`body.setSignatureAsync`: 30,000 characters). */
export const OUTLOOK_SIGNATURE_LIMIT = 30_000;

export const outlookTarget: DeploymentTarget = {
  name: 'outlook',
  maxChars: OUTLOOK_SIGNATURE_LIMIT,
  async deploy(_user, signature) {
    return { state: 'deployed', contentHash: signature.contentHash };
  },
};
