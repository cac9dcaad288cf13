import type { GoogleIntegrationRow } from '../store/schema.ts';
import { sealedContext, type SecretBox } from '../secrets/module.ts';
import type { GoogleCredentials } from './client.ts';

/** The connection's key, opened for a call. Sealed under the org's id: a row copied to another org does not open. */
export function credentialsOf(secrets: SecretBox, row: GoogleIntegrationRow): GoogleCredentials {
  return {
    clientEmail: row.client_email,
    clientId: row.client_id,
    privateKeyId: row.private_key_id,
    privateKey: secrets.open(row.sealed_private_key, sealedContext('google', row.org_id)),
  };
}
