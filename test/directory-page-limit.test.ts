// A directory that never stops paging: the reading stops at its page limit with an error, never
// answering the pages so far as the whole directory (the sync would delete every user past them).
// Each connector through the one reader (src/directory/connector.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readDirectory } from '../src/directory/connector.ts';
import { ConnectorError } from '../src/directory/errors.ts';
import { googleConnector } from '../src/google/connector.ts';
import type { GoogleClient } from '../src/google/client.ts';
import { createGraphClient } from '../src/microsoft/graph.ts';
import { microsoftConnector } from '../src/microsoft/connector.ts';
import { createSecretBox, sealedContext } from '../src/secrets/secret-box.ts';
import type { GoogleIntegrationRow, MicrosoftIntegrationRow } from '../src/store/schema.ts';

const secrets = createSecretBox(randomBytes(32));
const unused = {} as never;

test('Google: a directory still paging at the page limit is an error, not a partial list', async () => {
  let page = 0;
  const client = {
    async listUsers() {
      page++;
      return { users: [{ id: `u${page}`, primaryEmail: `u${page}@example.test`, name: { fullName: `U ${page}` } }], nextPageToken: `p${page}` };
    },
  } as unknown as GoogleClient;
  const connector = googleConnector({ db: unused, secrets, client, enqueue: unused, lease: unused, syncIntervalS: 3600 });
  const row = {
    org_id: 'o',
    admin_email: 'admin@example.test',
    client_email: 'sa@example.test',
    client_id: '1',
    private_key_id: 'k',
    sealed_private_key: secrets.seal('pem', sealedContext('google', 'o')),
  } as GoogleIntegrationRow;
  await assert.rejects(
    readDirectory(connector, row),
    (err) => err instanceof ConnectorError && err.source === 'google' && /^Google listed more than 2000 pages of users; nothing was changed/.test(err.message),
  );
  assert.equal(page, 2001, 'one page past the limit read, none more');
});

test('Microsoft: a tenant still paging at the page limit is an error, not a partial list', async () => {
  let page = 0;
  const fake = async (url: string | URL | Request) => {
    if (String(url).includes('/oauth2/v2.0/token')) return Response.json({ access_token: 't' });
    page++;
    return Response.json({
      value: [{ id: `u${page}`, mail: `u${page}@example.test`, displayName: `U ${page}` }],
      '@odata.nextLink': `https://graph.example.test/v1.0/users?page=${page}`,
    });
  };
  const graph = createGraphClient({ loginUrl: 'https://login.example.test', graphUrl: 'https://graph.example.test', fetch: fake as typeof fetch });
  const connector = microsoftConnector({ db: unused, secrets, graph, clock: () => new Date(), syncIntervalS: 3600 });
  const row = { org_id: 'o', tenant_id: 't', client_id: 'c', sealed_secret: secrets.seal('s', sealedContext('microsoft', 'o')) } as MicrosoftIntegrationRow;
  await assert.rejects(
    readDirectory(connector, row),
    (err) =>
      err instanceof ConnectorError &&
      err.source === 'microsoft' &&
      /^Microsoft Graph listed more than 5000 pages of users; nothing was changed/.test(err.message),
  );
  assert.equal(page, 5001, 'one page past the limit read, none more');
});
