// DECISIONS wave 3, "Nothing big on the event loop": no request, whatever its body, holds the
// service's event loop. The service runs as a process of its own, with its own flags (a test
// server in this process would share the probe's event loop); a probe asks `/health` every 10 ms
// while hostile input runs and for a second after its answer (work a request leaves behind, such
// as collecting its garbage, runs on the next requests' turn), and its slowest answer is printed
// and held under a generous bound (below). On the embedded store
// here, on PostgreSQL in the suite's PostgreSQL pass.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { isolatedStore, runCli } from './helpers/cli.ts';
import { startProcess, type ServiceProcess } from './helpers/process.ts';
import { freePort } from './helpers/server.ts';
import { ON_POSTGRES } from './helpers/pg.ts';
import { png } from './helpers/images.ts';

/**
 * Generous on purpose, for a 2-core machine shared by other work (load 12–17 when measured).
 * Embedded: the worst answers were 10–440 ms across runs; before this wave's changes 3,013 ms
 * (the images), 10,801 (the uploads), 2,208 (the 520,000 rows), 511 (the commas) and 1,233 (the
 * designs of 30 html blocks). PostgreSQL:
 * /health's ping is a round trip to a server that shares that CPU and serves the images' bytes:
 * 50–780 ms across runs (the images the most); before, 604, 289, 2,234 and 787.
 */
const BOUND_MS = ON_POSTGRES ? 1000 : 500;
const MB = 1024 * 1024;
const UNLIMITED = '1000000';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs an ES module's source in a Node process of its own; its exit code. */
const runScript = (source: string) =>
  new Promise<number | null>((resolve) => spawn(process.execPath, ['--input-type=module', '-e', source], { stdio: 'inherit' }).on('exit', resolve));

/** A PNG of exactly `bytes` bytes (its header, then padding the service does not read). */
const imageOf = (bytes: number, seed: number) => {
  const head = png(10 + (seed % 50), 10);
  return Buffer.concat([head, Buffer.alloc(bytes - head.length, seed & 0xff)]);
};

describe('nothing big on the event loop', { timeout: 300_000 }, () => {
  let service: ServiceProcess;
  let cleanup: () => Promise<void>;
  const orgs: { orgId: string; key: string }[] = [];

  before(async () => {
    const store = await isolatedStore();
    cleanup = store.cleanup;
    const env = {
      ...store.env,
      SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
      LOG_LEVEL: 'warn',
      // Every bucket out of the way: this is about the event loop, not about rate limits.
      ...Object.fromEntries(
        ['RATE_LIMIT', 'PIXEL_RATE_LIMIT', 'ANON_RATE_LIMIT', 'ORG_RATE_LIMIT', 'PUBLIC_RATE_LIMIT', 'ASSET_RATE_LIMIT'].flatMap((p) => [
          [`${p}_RPS`, UNLIMITED],
          [`${p}_BURST`, UNLIMITED],
        ]),
      ),
      QUOTA_REQUESTS_PER_MONTH: '0',
    };
    for (const name of ['Images', 'Uploads', 'Imports', 'Designs']) {
      const made = await runCli(['org', 'create', '--name', name, '--owner-email', `owner-${name.toLowerCase()}@stalls.test`], env);
      assert.equal(made.code, 0, made.stderr);
      const org = JSON.parse(made.stdout);
      orgs.push({ orgId: org.orgId, key: org.apiKey.key });
    }
    service = await startProcess(env, await freePort());
  });

  after(async () => {
    await service?.stop();
    await cleanup?.();
  });

  /** Runs `hostile`, probing /health every 10 ms during it and for a second after; the slowest answer. */
  async function worstHealth(hostile: () => Promise<void>): Promise<number> {
    let worst = 0;
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const started = performance.now();
        const res = await fetch(`${service.url}/health`);
        await res.arrayBuffer();
        worst = Math.max(worst, performance.now() - started);
        await sleep(10);
      }
    })();
    await hostile();
    await sleep(1000);
    probing = false;
    await probe;
    return worst;
  }

  const upload = async (org: { orgId: string; key: string }, body: Buffer) => {
    const res = await fetch(`${service.url}/v1/orgs/${org.orgId}/images`, {
      method: 'POST',
      headers: { 'x-api-key': org.key, 'content-type': 'image/png' },
      body: new Uint8Array(body),
    });
    const json = (await res.json()) as { imageId: string };
    assert.equal(res.status, 201, JSON.stringify(json));
    return json.imageId;
  };
  const store = ON_POSTGRES ? 'PostgreSQL' : 'the embedded store';

  test('36 images of 1 MB fetched in rotation by 6 clients at once', async (t) => {
    const ids: string[] = [];
    for (let i = 0; i < 36; i++) ids.push(await upload(orgs[0]!, imageOf(MB, i)));
    // The six clients are a process of their own, as they would be: in this one, their work on
    // 216 MB of answers would delay the probe's own turns and be counted against the service.
    const clients = `const ids = ${JSON.stringify(ids)};
      const sizes = await Promise.all(Array.from({ length: 6 }, async (_, client) => {
        let bytes = 0;
        for (let n = 0; n < ids.length; n++) bytes += (await (await fetch('${service.url}/v1/images/' + ids[(client * 6 + n) % ids.length])).arrayBuffer()).byteLength;
        return bytes;
      }));
      process.exit(sizes.every((b) => b === ids.length * ${MB}) ? 0 : 1);`;
    let code: number | null = null;
    const worst = await worstHealth(async () => {
      code = await runScript(clients);
    });
    assert.equal(code, 0, 'every client got every image whole');
    t.diagnostic(`worst /health on ${store}: ${worst.toFixed(1)} ms`);
    assert.ok(worst < BOUND_MS, `a /health answer took ${worst.toFixed(1)} ms`);
  });

  test('twelve uploads of 0.9 MB at once', async (t) => {
    // From a process of their own, for the reason the fetches above are.
    const org = orgs[1]!;
    const uploads = `import { png } from ${JSON.stringify(new URL('./helpers/images.ts', import.meta.url).href)};
      const statuses = await Promise.all(Array.from({ length: 12 }, async (_, i) => {
        const head = png(20 + i, 10);
        const body = Buffer.concat([head, Buffer.alloc(${Math.round(0.9 * MB)} - head.length, i)]);
        const res = await fetch('${service.url}/v1/orgs/${org.orgId}/images', { method: 'POST', headers: { 'x-api-key': '${org.key}', 'content-type': 'image/png' }, body });
        await res.arrayBuffer();
        return res.status;
      }));
      process.exit(statuses.every((s) => s === 201) ? 0 : 1);`;
    let code: number | null = null;
    const worst = await worstHealth(async () => {
      code = await runScript(uploads);
    });
    assert.equal(code, 0, 'every upload was stored');
    t.diagnostic(`worst /health on ${store}: ${worst.toFixed(1)} ms`);
    assert.ok(worst < BOUND_MS, `a /health answer took ${worst.toFixed(1)} ms`);
  });

  const importCsv = async (body: string) => {
    const res = await fetch(`${service.url}/v1/orgs/${orgs[2]!.orgId}/users/import`, {
      method: 'POST',
      headers: { 'x-api-key': orgs[2]!.key, 'content-type': 'text/csv' },
      body,
    });
    return { status: res.status, body: (await res.json()) as { error: { details: Record<string, unknown> } } };
  };

  test('a CSV of 520,000 rows (1 MB): 413 at row 1,001', async (t) => {
    const csv = `email\n${'a\n'.repeat(520_000)}`;
    assert.ok(csv.length < MB);
    let answer: Awaited<ReturnType<typeof importCsv>> | undefined;
    const worst = await worstHealth(async () => {
      answer = await importCsv(csv);
    });
    assert.equal(answer?.status, 413);
    assert.equal(answer?.body.error.details.limitRows, 1000);
    t.diagnostic(`worst /health on ${store}: ${worst.toFixed(1)} ms`);
    assert.ok(worst < BOUND_MS, `a /health answer took ${worst.toFixed(1)} ms`);
  });

  test('JSON nested millions deep, to an unknown route, a route behind a key, the users import and SCIM: each a 400 saying so, at once', async (t) => {
    const org = orgs[2]!;
    const scim = await fetch(`${service.url}/v1/orgs/${org.orgId}/integrations/scim`, { method: 'POST', headers: { 'x-api-key': org.key } });
    const { token } = (await scim.json()) as { token: string };
    // Encoded here, before the probe starts: this process's own work would count in its probe.
    const nested = (levels: number) => new Uint8Array(Buffer.from(`{"email":"x@y.z","extra":${'['.repeat(levels)}${']'.repeat(levels)}}`));
    const big = nested(2_600_000); // 5.2 MB: under the body limit, ~0.7 s of JSON.parse
    const small = nested(499_900); // 1 MB: the users import's and SCIM's limits
    const send = async (path: string, body: Uint8Array, headers: Record<string, string>) => {
      const res = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      return { status: res.status, text: await res.text() };
    };
    let answers: { status: number; text: string }[] = [];
    const worst = await worstHealth(async () => {
      answers = await Promise.all([
        send('/nope', big, {}),
        send(`/v1/orgs/${org.orgId}/users`, big, { 'x-api-key': org.key }),
        send(`/v1/orgs/${org.orgId}/users/import`, small, { 'x-api-key': org.key }),
        send('/scim/v2/Users', small, { authorization: `Bearer ${token}` }),
      ]);
    });
    for (const [i, a] of answers.entries()) {
      assert.equal(a.status, 400, `request ${i}: ${a.text.slice(0, 300)}`);
      assert.match(a.text, /more than 64 levels deep/, `request ${i}`);
    }
    assert.match(answers[3]!.text, /"scimType":"invalidSyntax"/, "SCIM's in SCIM's shape");
    t.diagnostic(`worst /health on ${store}: ${worst.toFixed(1)} ms`);
    assert.ok(worst < BOUND_MS, `a /health answer took ${worst.toFixed(1)} ms`);
  });

  test('a CSV line of a million commas', async (t) => {
    let answer: Awaited<ReturnType<typeof importCsv>> | undefined;
    const worst = await worstHealth(async () => {
      answer = await importCsv(`email\n${','.repeat(1_000_000)}\n`);
    });
    assert.equal(answer?.status, 413);
    t.diagnostic(`worst /health on ${store}: ${worst.toFixed(1)} ms`);
    assert.ok(worst < BOUND_MS, `a /health answer took ${worst.toFixed(1)} ms`);
  });

  test('a design of 30 html blocks of 20,000 characters, compiled 5 times, then 8 at once: 400 naming the block past the cap', async (t) => {
    // Each block within its own cap; together six times what a template may hold. The plain-text
    // version of every block was read on the event loop (~110 ms a request) before the render
    // thread refused the whole at Liquid's parse limit.
    const style = { fontFamily: 'arial', fontSize: 13, textColor: '#222222', accentColor: '#0055aa', linkColor: '#0055aa' };
    const blocks = Array.from({ length: 30 }, () => ({ type: 'html', html: `${'<a>'.repeat(6666)}<a` }));
    const body = JSON.stringify({ design: { version: 1, layout: 'stacked', style, blocks } });
    const org = orgs[3]!;
    const compile = async () => {
      const res = await fetch(`${service.url}/v1/orgs/${org.orgId}/templates/compile`, {
        method: 'POST',
        headers: { 'x-api-key': org.key, 'content-type': 'application/json' },
        body,
      });
      return { status: res.status, body: (await res.json()) as { error: { message: string; details: Record<string, unknown> } } };
    };
    const answers: Awaited<ReturnType<typeof compile>>[] = [];
    const worst = await worstHealth(async () => {
      for (let i = 0; i < 5; i++) answers.push(await compile());
      answers.push(...(await Promise.all(Array.from({ length: 8 }, compile))));
    });
    for (const answer of answers) {
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      // The sixth block brings them to 120,000 characters.
      assert.equal(answer.body.error.details.field, 'body.design.blocks.5.html', JSON.stringify(answer.body));
      assert.match(answer.body.error.message, /at most 100000/);
    }
    t.diagnostic(`worst /health on ${store}: ${worst.toFixed(1)} ms`);
    assert.ok(worst < BOUND_MS, `a /health answer took ${worst.toFixed(1)} ms`);
  });
});
