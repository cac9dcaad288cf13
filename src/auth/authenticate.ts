// Turns a request's credentials into a Principal, or refuses with 401 (docs/guide.md, "Credentials").
// `Authorization: Bearer <value>`: a value that starts with the key prefix is an API key and is
// never parsed as a JWT (rule 3); anything else must be an ID token. `X-Api-Key` carries keys only.
import type { IncomingHttpHeaders } from 'node:http';
import { unauthorized } from '../kernel/errors.ts';
import { KEY_PREFIX } from '../api-keys/module.ts';
import type { ApiKeyService } from '../api-keys/module.ts';
import type { Authenticate, Principal } from '../kernel/principal.ts';

export interface IdTokenVerifier {
  /** The principal of a valid ID token of a trusted issuer; undefined for anything else. */
  verify(token: string): Promise<Principal | undefined>;
}

export function createAuthenticator(deps: { apiKeys: ApiKeyService; idTokens?: IdTokenVerifier | undefined }): Authenticate {
  return async (headers) => {
    const credential = credentialOf(headers);
    if (!credential) throw unauthorized('Send an ID token or an API key: `Authorization: Bearer …` or `X-Api-Key: …`.');
    if (credential.startsWith(KEY_PREFIX)) {
      const result = await deps.apiKeys.verify(credential);
      if (result.ok) return { kind: 'apiKey', keyId: result.keyId, orgId: result.orgId };
      throw unauthorized(
        result.reason === 'revoked'
          ? 'This API key has been revoked.'
          : result.reason === 'wrong-stage'
            ? 'This API key belongs to another stage.'
            : 'This API key is not valid.',
      );
    }
    const principal = deps.idTokens ? await deps.idTokens.verify(credential) : undefined;
    if (!principal) throw unauthorized('The bearer token is not a valid, unexpired ID token of a trusted issuer.');
    return principal;
  };
}

function credentialOf(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match ? match[1] : undefined;
  }
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim()) {
    const value = apiKey.trim();
    return value.startsWith(KEY_PREFIX) ? value : undefined;
  }
  return undefined;
}
