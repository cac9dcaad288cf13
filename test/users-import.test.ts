// Importing users (docs/api.md): POST /v1/orgs/{orgId}/users/import, CSV or JSON, create or update by
// email, one result per row; a refused row changes nothing and the others go on.
import { randomInt } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './helpers/server.ts';
import { createOrg, createUser, type TestOrg } from './helpers/fixtures.ts';

// Addresses are unique across the stage, and on PostgreSQL every test file shares one database.
const DOMAIN = `import-${randomInt(1e9)}.example.test`;

describe('users import', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server.close());

  const csv = (o: TestOrg, body: string) =>
    server.request('POST', `/v1/orgs/${o.orgId}/users/import`, { key: o.key, rawBody: body, headers: { 'content-type': 'text/csv' } });
  const json = (o: TestOrg, rows: unknown) => server.request('POST', `/v1/orgs/${o.orgId}/users/import`, { key: o.key, body: rows });
  const users = async (o: TestOrg) => (await server.request('GET', `/v1/orgs/${o.orgId}/users?limit=200`, { key: o.key })).body.items as Record<string, any>[];
  const byEmail = async (o: TestOrg, email: string) => (await users(o)).find((u) => u.email === email);

  test('CSV: creates, updates by email (case-insensitive), refuses bad rows with the reason, the others go on', async () => {
    const org = await createOrg(server, { seats: 50 });
    const existing = await createUser(server, org, { email: `grace@${DOMAIN}`, name: 'Grace', title: 'Captain', department: 'Navy' });
    const body = [
      'email,name,title,department,phone,mobile,role',
      `ada@${DOMAIN},Ada Lovelace,Analyst,Research,+44 1,+44 2,admin`,
      `GRACE@${DOMAIN},Grace Hopper,,,,,`, // update: only the name; empty cells keep the rest
      'not-an-email,Bad Row,,,,,',
      `bob@${DOMAIN},Bob,,,,,overlord`,
      `carol@${DOMAIN},"Carol, with a comma",Lead,"Sales ""EU""",,,`,
      `dave@${DOMAIN},Dave`, // too few cells
      '',
    ].join('\r\n');
    const res = await csv(org, body);
    assert.equal(res.status, 200, res.text);
    const results = res.body.results;
    assert.deepEqual(
      results.map((r: { row: number; status: string }) => [r.row, r.status]),
      [
        [1, 'created'],
        [2, 'updated'],
        [3, 'refused'],
        [4, 'refused'],
        [5, 'created'],
        [6, 'refused'],
      ],
    );
    assert.equal(results[1].userId, existing.userId);
    assert.equal(results[0].error, null);
    assert.deepEqual({ ...results[2].error, message: undefined }, { code: 'BAD_REQUEST', field: 'email', message: undefined });
    assert.equal(results[3].error.field, 'role');
    assert.equal(results[2].userId, null);
    assert.match(results[5].error.message, /2 cells; the header has 7/);

    const ada = await byEmail(org, `ada@${DOMAIN}`);
    assert.deepEqual(
      [ada?.name, ada?.title, ada?.department, ada?.phone, ada?.mobile, ada?.role],
      ['Ada Lovelace', 'Analyst', 'Research', '+44 1', '+44 2', 'admin'],
    );
    assert.equal(ada?.userId, results[0].userId);
    const grace = await byEmail(org, `grace@${DOMAIN}`);
    assert.deepEqual([grace?.name, grace?.title, grace?.department, grace?.version], ['Grace Hopper', 'Captain', 'Navy', 2]);
    const carol = await byEmail(org, `carol@${DOMAIN}`);
    assert.deepEqual([carol?.name, carol?.department, carol?.role], ['Carol, with a comma', 'Sales "EU"', 'member']);
    assert.equal(await byEmail(org, `bob@${DOMAIN}`), undefined, 'a refused row created nothing');
    assert.equal((await users(org)).length, 4, 'owner, grace, ada, carol');

    // Audited: one entry per created/updated row under the request's correlation id, and the import.
    const audit = (await server.request('GET', `/v1/orgs/${org.orgId}/audit?limit=20`, { key: org.key })).body.items;
    const correlationId = res.headers.get('x-correlation-id');
    const mine = audit.filter((e: { correlationId: string }) => e.correlationId === correlationId).map((e: { action: string }) => e.action);
    assert.deepEqual(mine.sort(), ['user.create', 'user.create', 'user.import', 'user.update']);
  });

  test('a row equal to the user reports updated and changes nothing; columns in any order; a BOM; JSON rows', async () => {
    const org = await createOrg(server);
    const u = await createUser(server, org, { email: `same@${DOMAIN}`, name: 'Same', title: 'T' });
    const res = await csv(org, `\ufeffname,email\nSame,same@${DOMAIN}\nNew Person,new@${DOMAIN}\n`);
    assert.deepEqual(
      res.body.results.map((r: { status: string }) => r.status),
      ['updated', 'created'],
    );
    assert.equal((await byEmail(org, `same@${DOMAIN}`))?.version, u.version, 'no new version');

    const viaJson = await json(org, [
      { email: `json@${DOMAIN}`, name: 'J. Son', role: 'admin' },
      { email: `same@${DOMAIN}`, title: 'Boss' },
      { email: `x@${DOMAIN}`, extra: 'field' },
      'not an object',
      { email: `nul@${DOMAIN}`, name: 'a\u0000b' },
    ]);
    assert.equal(viaJson.status, 200, viaJson.text);
    assert.deepEqual(
      viaJson.body.results.map((r: { status: string }) => r.status),
      ['created', 'updated', 'refused', 'refused', 'refused'],
    );
    assert.equal(viaJson.body.results[4].error.field, 'name');
    assert.equal((await byEmail(org, `same@${DOMAIN}`))?.title, 'Boss');
    assert.equal((await byEmail(org, `json@${DOMAIN}`))?.role, 'admin');
  });

  test('role rules and the seat cap per row: an admin cannot make an owner; past the seats a row is refused with 402', async () => {
    const org = await createOrg(server, { seats: 3 });
    const res = await csv(org, `email,role\na1@${DOMAIN},owner\na2@${DOMAIN},\na3@${DOMAIN},\na4@${DOMAIN},member\n`);
    // API keys act as admin: an owner row is refused (403), two fit the seats, the last is 402.
    assert.deepEqual(
      res.body.results.map((r: { status: string }) => r.status),
      ['refused', 'created', 'created', 'refused'],
    );
    assert.equal(res.body.results[0].error.code, 'FORBIDDEN');
    assert.equal(res.body.results[0].error.field, 'role');
    assert.equal(res.body.results[3].error.code, 'PAYMENT_REQUIRED');
    assert.equal((await users(org)).length, 3);
    // Updating the owner's role through an import: refused by the same rules as PATCH.
    const owner = (await users(org)).find((u) => u.role === 'owner')!;
    const demote = await json(org, [{ email: owner.email, role: 'member' }]);
    assert.equal(demote.body.results[0].status, 'refused');
    assert.equal(demote.body.results[0].error.code, 'FORBIDDEN');
    assert.equal((await byEmail(org, owner.email))?.role, 'owner');
  });

  test('the whole body refused: a bad header, broken quoting, wrong content, too many rows, too many bytes', async () => {
    const org = await createOrg(server);
    const before = (await users(org)).length;
    const bad: [string, () => Promise<{ status: number; body: any }>, number][] = [
      ['unknown column', () => csv(org, `email,nickname\na@${DOMAIN},x\n`), 400],
      ['no email column', () => csv(org, 'name,title\nA,B\n'), 400],
      ['a column twice', () => csv(org, `email,email\na@${DOMAIN},b@${DOMAIN}\n`), 400],
      ['empty CSV', () => csv(org, ''), 400],
      ['broken quoting', () => csv(org, `email,name\na@${DOMAIN},"unclosed\n`), 400],
      ['a JSON object, not an array', () => json(org, { email: `a@${DOMAIN}` }), 400],
      ['a JSON string', () => json(org, `email\na@${DOMAIN}`), 400],
      [
        'CSV as text/plain',
        () =>
          server.request('POST', `/v1/orgs/${org.orgId}/users/import`, { key: org.key, rawBody: 'email\na@x.test', headers: { 'content-type': 'text/plain' } }),
        400,
      ],
      [
        '1001 JSON rows',
        () =>
          json(
            org,
            Array.from({ length: 1001 }, (_, i) => ({ email: `r${i}@${DOMAIN}` })),
          ),
        413,
      ],
      ['1001 CSV rows', () => csv(org, `email\n${Array.from({ length: 1001 }, (_, i) => `r${i}@${DOMAIN}`).join('\n')}`), 413],
      ['over 1 MB', () => csv(org, `email,name\n${`a@${DOMAIN},${'x'.repeat(1024 * 1024)}`}`), 413],
    ];
    for (const [what, send, status] of bad) {
      const res = await send();
      assert.equal(res.status, status, `${what}: ${res.status} ${JSON.stringify(res.body)}`);
      assert.ok(res.body.error.correlationId, what);
    }
    assert.equal((await users(org)).length, before, 'nothing created');
  });

  test('hostile bodies are bounded: reading stops at row 1,001, a line of a million commas, a JSON array of half a million items', async () => {
    const org = await createOrg(server);
    const before = (await users(org)).length;
    // 520,000 one-column rows (1 MB), whose end is broken quoting: the 413 for the rows comes
    // first, as the parser never reads that far.
    const rows = `email\n${'a@b.c\n'.repeat(170_000)}"unclosed\n`;
    const many = await csv(org, rows);
    assert.equal(many.status, 413, many.text);
    assert.equal(many.body.error.details.limitRows, 1000);
    assert.match(many.body.error.message, /at most 1000 rows/);

    const commas = await csv(org, `email\n${','.repeat(1_000_000)}\n`);
    assert.equal(commas.status, 413, commas.text);
    assert.equal(commas.body.error.details.limitLineBytes, 8192);
    // A long line anywhere: the header, or past a thousand good rows' worth of short ones.
    assert.equal((await csv(org, `email${',email'.repeat(5000)}\n`)).body.error.details.limitLineBytes, 8192);
    // A quoted value may hold line breaks; its record is bounded all the same.
    const quoted = await csv(org, `email,name\na@${DOMAIN},"${'x\n'.repeat(6000)}"\n`);
    assert.equal(quoted.status, 400, quoted.text);
    assert.equal(quoted.body.error.details.field, 'body');

    const array = await server.request('POST', `/v1/orgs/${org.orgId}/users/import`, { key: org.key, rawBody: `[${'0,'.repeat(499_999)}0]` });
    assert.equal(array.status, 413, array.text);
    assert.equal(array.body.error.details.limitRows, 1000);
    assert.match(array.body.error.message, /this one has 500000/);

    // The service goes on answering, on a new connection as on the old one.
    const good = await csv(org, `email\nok@${DOMAIN}\n`);
    assert.equal(good.status, 200, good.text);
    assert.equal((await users(org)).length, before + 1);
  });
});
