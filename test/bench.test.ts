// A smoke test of the benchmark harness (a quarter of a second per scenario and one connection, so it
// stays cheap beside the other test files): it runs end to end and reports the documented JSON
// shape. It asserts no speed: speed is measured by `npm run bench`, not by tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runNode } from './helpers/process.ts';
import { seededDataDir } from './helpers/snapshot.ts';
import { ON_POSTGRES } from './helpers/pg.ts';

// Its own time limit: the harness starts three processes and measures fourteen slices in a row.
test('npm run bench -- --duration 0.25 --json reports every scenario; --compare prints the change', { timeout: 300_000 }, async (t) => {
  if (ON_POSTGRES) return t.skip('the harness is smoke-tested once, on the embedded database');
  // A migrated data directory from the run's snapshot: the harness then skips initdb and migrations.
  const store = await seededDataDir('sigsvc-bench-');
  t.after(store.cleanup);
  const outDir = mkdtempSync(join(tmpdir(), 'sigsvc-bench-out-'));
  t.after(() => rmSync(outDir, { recursive: true, force: true }));
  const saved = join(outDir, 'run.json');
  // Every scenario but `gateway`, which runs bench/gateway.ts (smoke-tested by test/bench-gateway.test.ts) as a child process.
  const scenarios = [
    'org-apikey',
    'org-idtoken',
    'render-warm',
    'render-warm-campaign',
    'render-warm-subscribed',
    'render-cold',
    'pixel',
    'click',
    'webhook',
    'noisy-org',
  ];
  const args = [
    '--duration',
    '0.25',
    '--users',
    '5',
    '--connections',
    '1',
    '--data-dir',
    store.dir,
    '--json',
    '--out',
    saved,
    '--scenario',
    scenarios.join(','),
    '--pairs',
    '2',
  ];
  const res = await runNode(['bench/run.ts', ...args], {}, 290_000);
  assert.equal(res.code, 0, res.stderr);
  const report = JSON.parse(res.stdout);
  assert.deepEqual(JSON.parse(readFileSync(saved, 'utf8')), report, '--out saves the same report');
  assert.equal(typeof report.node, 'string');
  assert.ok(report.cpus >= 1);
  assert.ok(report.rssMb > 0);
  assert.deepEqual(
    report.scenarios.map((s: { name: string }) => s.name),
    ['baseline', ...scenarios],
  );
  assert.equal(typeof report.noisy.quietIdleP99Ms, 'number');
  for (const s of report.scenarios) {
    assert.deepEqual(Object.keys(s).sort(), ['baselineRps', 'cpuUsPerRequest', 'errors', 'name', 'non2xx', 'p50Ms', 'p99Ms', 'ratio', 'rps'].sort());
    assert.ok(s.cpuUsPerRequest > 0, `${s.name}: CPU time per request`);
    assert.equal(s.errors, 0, s.name);
    assert.equal(s.non2xx, 0, s.name);
    assert.ok(s.rps > 0, s.name);
  }
  assert.equal(report.scenarios[0].ratio, 1);
  // render-warm-campaign against render-warm, alternated: two pairs, each slice measured.
  const pairs = report.campaignPairs;
  assert.equal(pairs.a, 'render-warm');
  assert.equal(pairs.b, 'render-warm-campaign');
  assert.equal(pairs.aCpu.length, 2);
  assert.equal(pairs.bCpu.length, 2);
  for (const cpu of [...pairs.aCpu, ...pairs.bCpu]) assert.ok(cpu > 0, 'CPU time per request of each slice');
  assert.equal(pairs.pairChangesPct.length, 2);
  assert.equal(pairs.changePct, Math.round(((pairs.bMedian - pairs.aMedian) / pairs.aMedian) * 1000) / 10);
  // The baseline is measured before the first scenario and again after each one, and every
  // ratio is to the baseline slices around its scenario, not to the baseline row.
  const baselineSlices = res.stderr.split('\n').filter((line) => line.startsWith('… baseline:')).length;
  assert.equal(baselineSlices, report.scenarios.length, 'one baseline slice before the first scenario and one after each');
  assert.equal(report.scenarios[0].baselineRps, report.scenarios[0].rps);
  for (const s of report.scenarios.slice(1)) {
    assert.ok(s.baselineRps > 0, s.name);
    // baselineRps is the rounded mean of the two slices, so the ratio (to the exact mean) lies
    // within half a request per second of it; at a few dozen requests that is not small.
    const [low, high] = [s.rps / (s.baselineRps + 0.5), s.rps / Math.max(s.baselineRps - 0.5, 0.5)];
    assert.ok(s.ratio >= low - 0.0005 && s.ratio <= high + 0.0005, `${s.name}: ratio ${s.ratio} is rps ${s.rps} / baselineRps ${s.baselineRps}`);
  }

  // --compare FILE --with FILE2: two saved reports, nothing run; a row per scenario, RSS, the
  // gateway's figures (a later report with them, as `gateway` folds bench/gateway.ts's in).
  const later = join(outDir, 'later.json');
  const figures = { messagesPerS: 10, p50Ms: 5, p99Ms: 9, errors: 0 };
  writeFileSync(later, JSON.stringify({ ...report, gateway: { ratio: 0.5, stamped: figures, passThrough: { ...figures, messagesPerS: 20 } } }));
  const compared = await runNode(['bench/run.ts', '--compare', saved, '--with', later], {});
  assert.equal(compared.code, 0, compared.stderr);
  for (const s of report.scenarios) assert.match(compared.stdout, new RegExp(`^\\| ${s.name} \\|.*\\(0\\.0 %\\)`, 'm'), s.name);
  assert.match(compared.stdout, /^peak RSS of the service: (\d+) → \1 \(\+?0\)/m);
  assert.match(compared.stdout, /^gateway: ratio — → 0\.5/m);
});
