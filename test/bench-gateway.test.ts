// A smoke test of the gateway's benchmark (bench/gateway.ts: half a second of two clients and a
// 1 MB message, so it stays cheap): it runs end to end and reports its JSON shape, every message
// relayed without error. It asserts no speed: speed is `npm run bench:gateway`'s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runNode } from './helpers/process.ts';
import { ON_POSTGRES } from './helpers/pg.ts';
import { seededDataDir } from './helpers/snapshot.ts';

test('npm run bench:gateway -- --duration 0.5 --clients 2 --big-mb 1 --json reports both series and the big message', { timeout: 200_000 }, async (t) => {
  if (ON_POSTGRES) return t.skip('the harness is smoke-tested once, on the embedded database');
  // A migrated data directory from the run's snapshot: the service then skips initdb and migrations.
  const store = await seededDataDir('sigsvc-bench-gateway-');
  t.after(store.cleanup);
  const res = await runNode(['bench/gateway.ts', '--duration', '0.5', '--clients', '2', '--big-mb', '1', '--data-dir', store.dir, '--json'], {}, 190_000);
  assert.equal(res.code, 0, res.stderr);
  const report = JSON.parse(res.stdout);
  for (const series of [report.throughput.baseline, report.throughput.stamped]) {
    assert.ok(series.messagesPerS > 0);
    assert.equal(series.errors, 0);
    assert.ok(series.p50Ms > 0 && series.p99Ms >= series.p50Ms);
    assert.ok(series.cpuMsPerMessage > 0, 'the service CPU per message');
  }
  // Self-describing, for `npm run bench` to fold in: the ratios, the added latency, the goals and whether they are met.
  assert.equal(report.scenario, 'gateway');
  for (const n of [report.throughput.ratio, report.throughput.cpuRatio, report.throughput.addedLatencyMs.p50, report.throughput.addedLatencyMs.p99])
    assert.equal(typeof n, 'number');
  assert.deepEqual([report.throughput.goal.ratio, report.big.goal.rssGrowthMb], [0.7, 64]);
  assert.deepEqual(Object.keys(report.meetsGoals).sort(), ['cpuRatio', 'ratio', 'rssGrowth']);
  assert.equal(report.throughput.clients, 2);
  assert.ok(report.throughput.messageBytes > 19_000);
  assert.deepEqual([report.big.reply, report.big.relayed], ['250', 1]);
  assert.ok(report.big.rssPeakMb >= report.big.rssBeforeMb);
});
