// `node bench/ab.ts --before DIR [--after DIR]`: a change's before and after, side by side. Two
// services, one from each checkout (DIR: a checkout of the commit before, e.g.
// `git worktree add` or `git archive | tar -x` with a `node_modules` link; the default after is this
// one), each on its own data directory, both warmed up; then each scenario in short slices that
// alternate between the two (before, after, after, before, …), so that both meet the same machine:
// on a shared machine whose speed moves by tens of per cent within minutes, two whole bench runs
// one after the other compare the machine more than the change. Reports each side's CPU µs per
// request per slice, their medians and the change (BENCHMARKS.md, "How a change is measured").
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { freePort, httpRequest } from '../test/helpers/server.ts';
import { oidcClient, signIn } from '../test/helpers/browser.ts';
import { ROOT } from '../test/helpers/process.ts';
import { seededDataDir } from '../test/helpers/snapshot.ts';
import { benchEnv, HOT_ROUTES, hotRoutes, measure, median, type Load } from './measure.ts';
import { benchCampaign } from './campaign.ts';
import { connectProfiler, inspectOptions, type Profiler } from './profile.ts';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: fileURLToPath(ROOT) },
    scenario: { type: 'string', default: 'org-apikey,org-idtoken,render-warm,pixel,click' },
    slices: { type: 'string', default: '6' },
    duration: { type: 'string', default: '3' },
    connections: { type: 'string', default: '20' },
    profile: { type: 'string' },
  },
});
if (!values.before) throw new Error('--before DIR: a checkout of the commit before the change');
/** `click` and `render-warm-campaign`: a campaign active while they run (the other scenarios render without one). */
const CAMPAIGN_SCENARIOS = new Set(['click', 'render-warm-campaign']);
// The routes each side sets up (`side` below): the other scenarios of `npm run bench` (render-cold,
// webhook, noisy-org, gateway) need state of their own that only bench/run.ts makes.
const SCENARIOS: string[] = [...HOT_ROUTES, 'org-idtoken', ...CAMPAIGN_SCENARIOS];
const unknown = values.scenario.split(',').filter((name) => !SCENARIOS.includes(name));
if (unknown.length > 0) throw new Error(`--scenario: ${unknown.join(', ')} not measured here; one of ${SCENARIOS.join(', ')}`);
if (values.profile) mkdirSync(values.profile, { recursive: true });
const progress = (line: string) => process.stderr.write(`${line}\n`);
const load: Load = { connections: Number(values.connections), durationS: Number(values.duration), progress: () => {} };

/** A checkout's own Node flags and added environment (src/node-flags.json, src/node-env.json), as its launcher uses them. */
function launcher(dir: string): { flags: string[]; env: Record<string, string> } {
  const json = (name: string) => {
    const file = join(dir, 'src', name);
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  };
  // Its compile cache too, as src/runtime.ts sets it for the launchers, where the checkout has one.
  const compileCache = existsSync(join(dir, 'node_modules', '.cache')) ? { NODE_COMPILE_CACHE: join(dir, 'node_modules', '.cache', 'node-compile-cache') } : {};
  return { flags: json('node-flags.json') ?? [], env: { ...compileCache, ...(json('node-env.json') ?? {}) } };
}

function run(dir: string, args: string[], env: Record<string, string>) {
  const own = launcher(dir);
  return spawn(process.execPath, [...own.flags, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ...own.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** One side: its own data directory, org, service, ID token and campaign link. */
async function side(dir: string) {
  // Before any migration: each side's own CLI migrates it with that checkout's migrations (a
  // migrated snapshot is this checkout's, and would give the side before a migration under test).
  const store = await seededDataDir('sigsvc-ab-', { migrated: false });
  const env = benchEnv(store.dir, { SECRETS_KEY: randomBytes(32).toString('base64'), SIGNIN_ATTEMPTS_PER_MINUTE: '100000' });
  const password = 'bench owner password';
  // An owner of its own per side and run: with DATABASE_URL both sides seed the same database.
  const ownerEmail = `owner-${randomBytes(4).toString('hex')}@ab.test`;
  const cli = run(dir, ['src/cli/main.ts', 'org', 'create', '--name', 'AB Ltd', '--owner-email', ownerEmail, '--owner-password', password], env);
  let out = '';
  let err = '';
  cli.stdout.on('data', (d) => (out += d));
  cli.stderr.on('data', (d) => (err += d));
  const code = await new Promise((r) => cli.once('close', r));
  if (code !== 0) throw new Error(`${dir}: sigsvc org create exited with ${code}: ${err.trim()}`);
  const org = JSON.parse(out) as { orgId: string; ownerUserId: string; apiKey: { key: string } };
  const port = await freePort();
  const inspectPort = values.profile ? await freePort() : 0;
  const child = run(dir, ['src/main.ts'], {
    ...env,
    PORT: String(port),
    BASE_URL: `http://127.0.0.1:${port}`,
    ...(values.profile ? { NODE_OPTIONS: inspectOptions(inspectPort) } : {}),
  });
  // Its output read, or a service that logs more than a pipe holds (warnings of a slow event loop,
  // say) blocks on its next line; the last of it kept for the report of an early exit.
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (d) => (output = (output + d).slice(-4000)));
  child.once('exit', (code, signal) => {
    // SIGTERM is ended()'s own stop.
    if (code || (signal && signal !== 'SIGTERM')) progress(`${dir}: the service exited (${code ?? signal}): ${output}`);
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    return await started({ child, url, org, password, ownerEmail, store, inspectPort });
  } catch (error) {
    child.kill('SIGTERM');
    store.cleanup();
    throw error;
  }
}

/**
 * Stops a side's service and waits for it to end, killing it after 10 s: one left behind (a
 * profiled service once outlived its SIGTERM) takes a core from every run after it.
 */
async function ended(child: ReturnType<typeof run>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exit;
  clearTimeout(timer);
}

/** A side's service once its process runs: warmed up, with its routes (ab's `side`, split for its length). */
async function started({
  child,
  url,
  org,
  password,
  ownerEmail,
  store,
  inspectPort,
}: {
  child: ReturnType<typeof run>;
  url: string;
  org: { orgId: string; ownerUserId: string; apiKey: { key: string } };
  password: string;
  ownerEmail: string;
  store: Awaited<ReturnType<typeof seededDataDir>>;
  inspectPort: number;
}) {
  while (
    !(await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    ))
  )
    await new Promise((r) => setTimeout(r, 200));
  const service = { url, pid: child.pid, output: () => '', exit: new Promise<null>(() => {}), stop: async () => void child.kill('SIGTERM') };
  const key = org.apiKey.key;
  const api = (method: string, path: string, body?: unknown) => httpRequest(url, method, path, { key, ...(body ? { body } : {}) });
  const template = await api('POST', `/v1/orgs/${org.orgId}/templates`, {
    name: 'Standard',
    isDefault: true,
    html: '<p>{{ user.name }}, {{ org.name }}<img src="{{ pixel_url }}"></p>{{ campaign.banner | raw }}',
  });
  if (template.status !== 201) throw new Error(template.text);
  const client = await oidcClient(`${url}/auth`, 'app-client-bench', `${url}/app`);
  const idToken = (await signIn(client, { username: ownerEmail, password })).tokens.id_token as string;
  const hot = hotRoutes(service, { orgId: org.orgId, key, userId: org.ownerUserId });
  const campaign = await benchCampaign(url, org.orgId, key, org.ownerUserId, api)();
  const routes: Record<string, autocannon.Options> = {
    ...hot,
    'org-idtoken': { url: `${url}/v1/orgs/${org.orgId}`, headers: { authorization: `Bearer ${idToken}` } },
  };
  for (const r of Object.values(routes)) await autocannon({ ...r, connections: 1, amount: 300 });
  /** `click` and `render-warm-campaign`: a campaign active while they run (the other scenarios render without one). */
  const withCampaign = async () => {
    const { clickUrl, end } = await campaign.start();
    routes.click = { url: clickUrl };
    routes['render-warm-campaign'] = routes['render-warm'] as autocannon.Options;
    for (const r of [routes.click, routes['render-warm-campaign']]) await autocannon({ ...r, connections: 1, amount: 300 });
    return end;
  };
  const profiler: Profiler | undefined = values.profile ? await connectProfiler(inspectPort, values.profile) : undefined;
  return {
    service,
    routes,
    withCampaign,
    profiler,
    stop: async () => {
      profiler?.close();
      await ended(child);
      await store.cleanup();
    },
  };
}

const profileTops: string[] = [];
const before = await side(resolve(values.before));
const after = await side(resolve(values.after)).catch((error: unknown) => {
  before.stop();
  throw error;
});
const sides = { before, after };
try {
  const lines = [
    '| scenario | before: CPU µs/req per slice | after | median before → after | change | median p99 ms before → after |',
    '|---|---|---|---|---|---|',
  ];
  for (const name of values.scenario.split(',')) {
    const figures: Record<'before' | 'after', number[]> = { before: [], after: [] };
    const p99: Record<'before' | 'after', number[]> = { before: [], after: [] };
    const ends = CAMPAIGN_SCENARIOS.has(name) ? [await sides.before.withCampaign(), await sides.after.withCampaign()] : [];
    // A slice of each side first, not counted: the route's code optimized by the JIT and its
    // caches and pools at their steady size (the 300 requests of the warm-up do not get there; the
    // first counted slices were up to twice the others).
    for (const which of ['before', 'after'] as const) await measure(name, sides[which].service, load, sides[which].routes[name]!, name === 'click' ? 3 : 2);
    for (let i = 0; i < Number(values.slices); i++) {
      for (const which of i % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const)) {
        const s = sides[which];
        const m = await measure(name, s.service, load, s.routes[name]!, name === 'click' ? 3 : 2);
        if (m.errors || m.non2xx) throw new Error(`${which} ${name}: ${m.errors} errors, ${m.non2xx} unexpected answers`);
        figures[which].push(m.cpuUsPerRequest);
        p99[which].push(m.p99Ms);
      }
    }
    // --profile DIR: one more slice of each side, profiled (not among the figures: the sampling costs).
    for (const which of values.profile ? (['before', 'after'] as const) : []) {
      const s = sides[which];
      await s.profiler?.start();
      const m = await measure(name, s.service, load, s.routes[name]!, name === 'click' ? 3 : 2);
      const top = (await s.profiler?.stop(`${which}-${name}`)) ?? [];
      profileTops.push(...top, `(${which}, profiled: ${m.cpuUsPerRequest} CPU µs/req, ${m.rps} req/s)`, '');
    }
    for (const end of ends) await end();
    const [b, a] = [median(figures.before), median(figures.after)];
    lines.push(
      `| ${name} | ${figures.before.join(', ')} | ${figures.after.join(', ')} | ${b} → ${a} | ${(((a - b) / b) * 100).toFixed(1)} % | ${median(p99.before)} → ${median(p99.after)} |`,
    );
    progress(lines.at(-1) ?? '');
  }
  // Each side's peak RSS (VmHWM), for changes that trade memory for CPU (e.g. MALLOC_ARENA_MAX).
  const peak = (pid: number | undefined) => /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  lines.push(
    '',
    `peak RSS before / after: ${Math.round(Number(peak(sides.before.service.pid)) / 1024)} / ${Math.round(Number(peak(sides.after.service.pid)) / 1024)} MB`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  if (values.profile) writeFileSync(join(values.profile, 'top.md'), `${profileTops.join('\n')}\n`);
} finally {
  await Promise.all([sides.before.stop(), sides.after.stop()]);
}
process.exit(0);
