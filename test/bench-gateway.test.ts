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
  }
  assert.equal(report.throughput.clients, 2);
  assert.ok(report.throughput.messageBytes > 19_000);
  assert.deepEqual([report.big.reply, report.big.relayed], ['250', 1]);
  assert.ok(report.big.rssPeakMb >= report.big.rssBeforeMb);
});
