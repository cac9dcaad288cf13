// Screenshots of the dashboard's main pages (docs/screenshots/, shown by docs/web-apps.md): a test
// server with a small org, signed in through the real identity provider in Chromium.
// Run: node tools/web-screenshots.ts (after npm run build:web).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startServer } from '../test/helpers/server.ts';
import { createOrg, createTemplate, createUser, userWithPassword } from '../test/helpers/fixtures.ts';
import { launchBrowser, openPage, signInThroughApp } from '../test/helpers/chromium.ts';

const OUT = path.join(import.meta.dirname, '..', 'docs', 'screenshots');
mkdirSync(OUT, { recursive: true });

const server = await startServer();
const browser = await launchBrowser();
try {
  const org = await createOrg(server, { name: 'Acme Rockets', seats: 25 });
  await createTemplate(server, org, {
    html:
      '<table cellpadding="0" cellspacing="0" style="font-family:Arial,sans-serif;font-size:13px;color:#1f2937"><tr>' +
      '<td style="padding-right:14px;border-right:3px solid #3b4fd8"><strong style="font-size:15px">{{ user.name }}</strong><br>{{ user.title }}<br>{{ user.department }}</td>' +
      '<td style="padding-left:14px"><strong>{{ org.name }}</strong><br>{{ user.phone }}<br><a href="mailto:{{ user.email }}">{{ user.email }}</a></td></tr></table>',
    text: '{{ user.name }} | {{ user.title }} | {{ org.name }}',
  });
  const people = [
    { name: 'Grace Hopper', title: 'Director of Engineering', department: 'Engineering', role: 'admin' },
    { name: 'Katherine Johnson', title: 'Flight Dynamics', department: 'Research', role: 'member' },
    { name: 'Margaret Hamilton', title: 'Software Lead', department: 'Engineering', role: 'member' },
    { name: 'Alan Turing', title: 'Cryptanalyst', department: 'Research', role: 'member' },
  ];
  for (const p of people) await createUser(server, org, { ...p, email: `${p.name.split(' ')[0]!.toLowerCase()}@acme.test` });
  const owner = await userWithPassword(server, org, 'owner');
  const current = await server.request('GET', `/v1/orgs/${org.orgId}/users/${owner.userId}`, { key: org.key });
  await server.request('PATCH', `/v1/orgs/${org.orgId}/users/${owner.userId}`, {
    key: org.key,
    body: { version: current.body.version, name: 'Ada Lovelace', title: 'Founder & CEO', department: 'Leadership', phone: '+44 20 7946 0000' },
  });
  for (let i = 0; i < 40; i++) {
    await fetch(`${server.url}/v1/p/${owner.userId}`, { headers: { 'user-agent': i % 4 === 0 ? 'GoogleImageProxy' : 'Mozilla/5.0 (X11) Thunderbird' } });
  }
  await server.deps.opens.flush();

  const shots: [string, string, string][] = [
    ['overview', '/app/overview', 'Overview'],
    ['users', '/app/users', 'Users'],
    ['signature', '/app/signature', 'My signature'],
    ['profile', '/app/profile', 'My profile'],
    ['security', '/app/security', 'Security'],
  ];
  const { page, context } = await openPage(browser);
  await signInThroughApp(page, `${server.url}/app`, owner);
  for (const [name, url, heading] of shots) {
    await page.goto(server.url + url);
    await page
      .getByRole('heading', { level: 1, name: heading })
      .or(page.getByRole('heading', { level: 1, name: 'Acme Rockets' }))
      .waitFor();
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: path.join(OUT, `${name}.png`) });
    console.log(`docs/screenshots/${name}.png`);
  }
  await context.close();

  const phone = await openPage(browser, { viewport: { width: 390, height: 800 }, colorScheme: 'dark' });
  await signInThroughApp(phone.page, `${server.url}/app/signature`, owner);
  await phone.page.getByRole('heading', { level: 1, name: 'My signature' }).waitFor();
  await phone.page.waitForLoadState('networkidle');
  await phone.page.screenshot({ path: path.join(OUT, 'signature-phone-dark.png') });
  console.log('docs/screenshots/signature-phone-dark.png');
  await phone.context.close();
} finally {
  await browser.close();
  await server.close();
}
