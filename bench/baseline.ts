// The bench's yardstick: a bare Fastify server answering small JSON, in its own process like the
// service, so both pay the same process and network costs.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ ok: true, service: 'baseline' }));
const port = Number(process.argv[2] ?? 0);
await app.listen({ port, host: '127.0.0.1' });

process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
