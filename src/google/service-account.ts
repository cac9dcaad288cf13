// The JSON key file Google issues for a service account. Other JSON files Google hands out (an
// OAuth client's `{"web": …}` or `{"installed": …}`, a user's `authorized_user` credentials, an
// external account's configuration) are refused with a 400 that says which file was sent.
import { importPKCS8 } from 'jose';
import { badRequest } from '../kernel/errors.ts';
import { isStorable } from '../lib/text.ts';

export interface ServiceAccountKey {
  clientEmail: string;
  clientId: string;
  privateKeyId: string;
  projectId: string;
  privateKey: string;
}

const FIELD = 'body.serviceAccountKey';

export async function parseServiceAccountKey(value: unknown): Promise<ServiceAccountKey> {
  const refuse = (why: string) => badRequest(`serviceAccountKey: ${why}`, { field: FIELD });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw refuse('must be the JSON key file of a service account (an object).');
  const key = value as Record<string, unknown>;
  if ('web' in key || 'installed' in key) {
    throw refuse(
      "this is an OAuth client's file, not a service account key. In Google Cloud → IAM → Service accounts, open the account → Keys → Add key → JSON.",
    );
  }
  if (key.type !== 'service_account') {
    throw refuse(`is not a service account key (its "type" is ${JSON.stringify(key.type ?? null)}, expected "service_account").`);
  }
  const str = (name: string) => (typeof key[name] === 'string' ? (key[name] as string) : '');
  for (const name of ['client_email', 'client_id', 'private_key_id', 'project_id', 'private_key']) {
    if (!isStorable(str(name)) || str(name).length > 10_000) throw refuse(`its ${name} is not a value Google issues.`);
  }
  const clientEmail = str('client_email');
  const privateKey = str('private_key');
  if (!/^[^@\s]+@[^@\s]+$/.test(clientEmail)) throw refuse('has no client_email.');
  if (!privateKey.includes('-----BEGIN PRIVATE KEY-----')) throw refuse('has no private_key in PKCS #8 PEM form.');
  try {
    await importPKCS8(privateKey, 'RS256');
  } catch {
    throw refuse('its private_key is not a readable RSA key.');
  }
  return { clientEmail, clientId: str('client_id'), privateKeyId: str('private_key_id'), projectId: str('project_id'), privateKey };
}
