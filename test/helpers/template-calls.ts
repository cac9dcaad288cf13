// The three routes that compile or render a template, through the generated client, and a way to
// read any answer's status and body; shared by the hostile-template tests.
import type { TestServer } from './server.ts';
import type { TestOrg } from './fixtures.ts';
import { api } from './api.ts';

export const save = (server: TestServer, org: TestOrg, body: { name: string; html: string; text?: string }) =>
  api(server, org).POST('/v1/orgs/{orgId}/templates', { params: { path: { orgId: org.orgId } }, body });
export const preview = (server: TestServer, org: TestOrg, body: { userId: string; html: string }) =>
  api(server, org).POST('/v1/orgs/{orgId}/templates/preview', { params: { path: { orgId: org.orgId } }, body });
export const render = (server: TestServer, org: TestOrg, userId: string, templateId: string) =>
  api(server, org).POST('/v1/orgs/{orgId}/render/{userId}', { params: { path: { orgId: org.orgId, userId } }, body: { templateId } });
/** An answer's status and body (the data or the error envelope), for assertions on either. */
export const seen = async <D, E>(answer: Promise<{ data?: D; error?: E; response: Response }>) => {
  const { data, error, response } = await answer;
  return {
    status: response.status,
    data,
    error: error as { error: { code: string; message: string; details?: Record<string, any> } } | undefined,
    text: JSON.stringify(data ?? error),
  };
};
