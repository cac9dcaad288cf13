// What the SCIM tests share: SCIM's schema URNs and an org's SCIM token.
import assert from 'node:assert/strict';
import type { TestServer } from './server.ts';
import type { TestOrg } from './fixtures.ts';

export const SCIM = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  enterprise: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
} as const;

/** Turns SCIM on for the org (its admin's API key): the base URL and the token, shown once. */
export async function enableScim(server: TestServer, org: TestOrg): Promise<{ baseUrl: string; token: string }> {
  const res = await server.request('POST', `/v1/orgs/${org.orgId}/integrations/scim`, { key: org.key });
  assert.equal(res.status, 201, res.text);
  return res.body as { baseUrl: string; token: string };
}
