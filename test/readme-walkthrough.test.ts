// The README's "First steps" walkthrough, run as written (bash, curl, jq, openssl) against a real
// server: a template, a user, a rendered signature, then an ID token by code + PKCE, used on the
// API. Only what a test must change is changed: the org comes from the service (not `npx sigsvc`),
// the server is this test's (not `npm start` on port 3000), and the emails are unique.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from './helpers/server.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('## First steps'));
const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

describe('the README walkthrough', () => {
  let server: TestServer;
  let dir: string;
  before(async () => {
    server = await startServer();
    dir = mkdtempSync(join(tmpdir(), 'sigsvc-readme-'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the README's walkthrough: from a new org to a rendered signature and an ID token", async () => {
    const lines = script.split('\n');
    const create = lines.find((l) => l.startsWith('npx sigsvc org create '));
    assert.ok(create && lines.some((l) => l.startsWith('npm start')) && lines.some((l) => l.startsWith('BASE=')), script);
    const password = /--owner-password '([^']+)'/.exec(create)?.[1] ?? '';
    const ownerEmail = /--owner-email (\S+)/.exec(create)?.[1] ?? '';
    const name = /--name (\S+)/.exec(create)?.[1] ?? '';
    const unique = randomUUID().slice(0, 8);

    // What `npx sigsvc org create … > org.json` writes.
    const created = await server.deps.orgs.create({
      name,
      seats: 5,
      plan: 'trial',
      ownerEmail: `${unique}-${ownerEmail}`,
      ownerPassword: password,
      correlationId: 'readme',
    });
    writeFileSync(join(dir, 'org.json'), JSON.stringify(created));

    const runnable = lines
      .filter((l) => !l.startsWith('npx sigsvc org create ') && !l.startsWith('npm start'))
      .map((l) => (l.startsWith('BASE=') ? `BASE=${server.url}` : l))
      .join('\n')
      .replaceAll(ownerEmail, `${unique}-${ownerEmail}`)
      .replaceAll('ada@acme.test', `${unique}-ada@acme.test`);
    // Asynchronously: the server answering the script runs in this process.
    const res = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn('bash', ['-euo', 'pipefail', '-c', runnable], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
      child.on('error', reject);
      child.on('close', (status) => {
        clearTimeout(timer);
        resolve({ status, stdout, stderr });
      });
    });
    assert.equal(res.status, 0, `${res.stderr}\n${res.stdout}`);

    const answers = jsonValues(res.stdout);
    const template = answers.find((a) => 'templateId' in a && 'isDefault' in a);
    assert.equal(template?.isDefault, true);
    const rendered = answers.find((a) => 'html' in a && 'bytes' in a);
    assert.equal(rendered?.html, '<p><b>Ada Lovelace</b>, Engineer at Acme<br />+44 20 7946 0000</p>');
    assert.equal(rendered?.text, 'Ada Lovelace, Engineer at Acme');
    // The last answer: the org, read with the owner's ID token.
    const org = answers.at(-1);
    assert.equal(org?.orgId, created.orgId, res.stdout);
    assert.equal(org?.name, name);
    assert.equal(org?.seatsUsed, 2);
  });

  /** The JSON objects printed one after another (curl adds no newline after a body), in order. */
  function jsonValues(text: string): Record<string, unknown>[] {
    const values: Record<string, unknown>[] = [];
    let depth = 0;
    let start = -1;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"' && depth > 0) inString = true;
      else if (c === '{') {
        if (depth++ === 0) start = i;
      } else if (c === '}' && depth > 0 && --depth === 0) {
        values.push(JSON.parse(text.slice(start, i + 1)) as Record<string, unknown>);
      }
    }
    return values;
  }
});
