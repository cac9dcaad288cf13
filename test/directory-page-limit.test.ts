// A directory that never stops paging: the reading stops at its page limit with an error, never
// answering the pages so far as the whole directory (the sync would delete every user past them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readDirectory } from '../src/google/runs.ts';
import { GoogleError } from '../src/google/errors.ts';
import type { GoogleClient } from '../src/google/client.ts';
import { createGraphClient, MicrosoftError } from '../src/microsoft/graph.ts';

test('Google: a directory still paging at the page limit is an error, not a partial list', async () => {
  let page = 0;
  const client = {
    async listUsers() {
      page++;
      return { users: [{ id: `u${page}`, primaryEmail: `u${page}@example.test`, name: { fullName: `U ${page}` } }], nextPageToken: `p${page}` };
    },
  } as unknown as GoogleClient;
  await assert.rejects(
    readDirectory(client, {} as never, 'admin@example.test'),
    (err) => err instanceof GoogleError && /more than \d+ pages; nothing was changed/.test(err.message),
  );
  assert.ok(page > 1);
});

test('Microsoft: a tenant still paging at the page limit is an error, not a partial list', async () => {
  let page = 0;
  const fake = async (url: string | URL | Request) => {
    if (String(url).includes('/oauth2/v2.0/token')) return Response.json({ access_token: 't' });
    page++;
    return Response.json({ value: [{ id: `u${page}`, mail: `u${page}@example.test`, displayName: `U ${page}` }], '@odata.nextLink': `https://graph.example.test/v1.0/users?page=${page}` });
  };
  const graph = createGraphClient({ loginUrl: 'https://login.example.test', graphUrl: 'https://graph.example.test', fetch: fake as typeof fetch });
  await assert.rejects(
    graph.listUsers({ tenantId: 't', clientId: 'c', clientSecret: 's' }),
    (err) => err instanceof MicrosoftError && /more than \d+ pages of users; nothing was changed/.test(err.message),
  );
  assert.ok(page > 1);
});
