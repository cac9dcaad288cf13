// The bench's yardstick: a bare Fastify server answering small JSON, in its own process like the
// service, so both pay the same process and network costs. `node bench/baseline.ts PORT [WORK_US]`:
// with WORK_US, each answer first spins for that many microseconds of CPU, a stand-in for a
// route's own work (bench/yardstick.ts: what ratio such a server gets on this machine).
import Fastify from 'fastify';

const workUs = Number(process.argv[3] ?? 0);
const app = Fastify({ logger: false });
app.get('/', async () => {
  if (workUs > 0) {
    const end = performance.now() + workUs / 1000;
    while (performance.now() < end);
  }
  return { ok: true, service: 'baseline' };
});
const port = Number(process.argv[2] ?? 0);
await app.listen({ port, host: '127.0.0.1' });

process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
