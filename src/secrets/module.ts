// Sealed secrets: AES-256-GCM under SECRETS_KEY (and its previous keys), for the integrations' credentials.
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { createSecretBox, SecretError, type SecretBox } from './secret-box.ts';

export { sealedContext } from './secret-box.ts';

export { createSecretBox, SecretError, type SecretBox };
export { rekeySecrets } from './rekey.ts';
export { findSecretsKey, generatedKeyAdvice } from './key-file.ts';

export function secretsModule(core: Core): Module<SecretBox> {
  return { name: 'secrets', service: createSecretBox(core.config.secretsKey, core.config.secretsKeysPrevious) };
}
