// Starts the real service in this test process (real database, real HTTP) and speaks HTTP to it.
// DATABASE_URL / REDIS_URL from the environment choose PostgreSQL and Redis (as .ci/run does);
// without them the embedded database runs in memory, started from the run's migrated snapshot.
import { createServer } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { createDeps, type Deps, type DepsOverrides } from '../../src/deps.ts';
import { buildApp } from '../../src/app.ts';
import { callingTestFile, claimShared } from './shared-resources.ts';
import { migratedSnapshot } from './snapshot.ts';
import { testPasswords } from './passwords.ts';

export interface TestServer {
  url: string;
  port: number;
  app: FastifyInstance;
  deps: Deps;
  request: (method: string, path: string, options?: RequestOptions) => Promise<TestResponse>;
  close: () => Promise<void>;
}

export interface RequestOptions {
  body?: unknown;
  /** A raw body string, sent as is (with content-type application/json unless headers say otherwise). */
  rawBody?: string;
  key?: string;
  token?: string;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: process.env.DATABASE_URL ?? 'memory://',
    REDIS_URL: process.env.REDIS_URL ?? '',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RATE_LIMIT_RPS: '1000000',
    RATE_LIMIT_BURST: '1000000',
    PIXEL_RATE_LIMIT_RPS: '1000000',
    PIXEL_RATE_LIMIT_BURST: '1000000',
    ANON_RATE_LIMIT_RPS: '1000000',
    ANON_RATE_LIMIT_BURST: '1000000',
    ORG_RATE_LIMIT_RPS: '1000000',
    ORG_RATE_LIMIT_BURST: '1000000',
    PUBLIC_RATE_LIMIT_RPS: '1000000',
    PUBLIC_RATE_LIMIT_BURST: '1000000',
    ASSET_RATE_LIMIT_RPS: '1000000',
    ASSET_RATE_LIMIT_BURST: '1000000',
    // 429s at once: tests count them one after the other.
    THROTTLE_REFUSAL_DELAY_MS: '0',
    WEBHOOK_SECRET: 'whsec_test_secret',
    // 32 bytes of a test-only key (integrations seal their secrets with it).
    SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
    // Nothing leaves the machine: a sync queued by a test that did not start the fake of Microsoft
    // fails at once against a closed local port (the tests that sync pass the fake's URL).
    MICROSOFT_LOGIN_URL: 'http://127.0.0.1:9',
    MICROSOFT_GRAPH_URL: 'http://127.0.0.1:9',
    SIGNIN_ATTEMPTS_PER_MINUTE: '100000',
    // No upkeep round at an arbitrary moment of another test (the stall tests time the event loop);
    // test/store-upkeep.test.ts sets its own interval.
    EMBEDDED_VACUUM_INTERVAL_MS: '0',
    // On PostgreSQL the service fails fast (1.5 s for a pooled connection or a statement): on a
    // 2-core CI machine running three shards, a browser and the server, a wait that long is the
    // machine, not what a test tests. test/dependencies.test.ts tests the defaults themselves.
    DATABASE_CONNECT_TIMEOUT_MS: '10000',
    DATABASE_STATEMENT_TIMEOUT_MS: '10000',
    ...extra,
  };
}

export async function freePort(): Promise<number> {
  const { port, release } = await reservePort();
  await release();
  return port;
}

/**
 * A free port, held by a listening socket until `release`. Between a port found free and a server
 * listening on it, any process's outgoing connection may take it as its own local port (the tests
 * run in several processes at once): held, neither a connection nor another listener gets it, so the
 * window shrinks from the seconds a service takes to build to the moment between release and listen.
 */
export async function reservePort(): Promise<{ port: number; release: () => Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // A reservation a failing caller forgets keeps no process alive.
  server.unref();
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { port, release: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export async function startServer(
  env: Record<string, string> = {},
  options: DepsOverrides & {
    beforeReady?: (app: FastifyInstance) => void;
    /** The test file the server belongs to, for a helper that starts it from a hook of its own (else read from the stack). */
    testFile?: string;
  } = {},
): Promise<TestServer> {
  const file = options.testFile ?? callingTestFile();
  const phases = slowStartLog(file);
  const reserved = env.PORT ? undefined : await reservePort();
  const port = reserved?.port ?? Number(env.PORT);
  const config = loadConfig(testEnv({ PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, ...env }));
  const logger = createLogger(config.logLevel, false);
  const inMemory = config.databaseUrl?.startsWith('memory://') ?? false;
  // A test that names its database (DATABASE_URL: 'memory://', a scratch one) or its snapshot gets
  // one of its own; the others share the process's (shared-resources.ts).
  const ownDatabase = 'DATABASE_URL' in env || options.snapshot !== undefined;
  const claim = await claimShared(file, {
    embedded: inMemory && !ownDatabase,
    postgresUrl: !ownDatabase && !inMemory ? config.databaseUrl : undefined,
    threads: config.renderThreads,
  });
  phases.mark('claimed the shared database and render pool');
  const shared = { ...claim.shared, ...options.shared };
  const snapshot = options.snapshot ?? (inMemory && !shared.database ? await migratedSnapshot() : undefined);
  // Cheap hashing unless the test chooses (`passwords: undefined` asks for the service's default).
  const passwords = 'passwords' in options ? options.passwords : testPasswords;
  let deps: Deps | undefined;
  let app: FastifyInstance;
  try {
    deps = await createDeps(config, logger, { ...options, snapshot, passwords, shared });
    phases.mark('createDeps');
    app = await buildApp(deps);
    phases.mark('buildApp');
    options.beforeReady?.(app);
    await reserved?.release();
    await app.listen({ port, host: '127.0.0.1' });
    phases.done();
  } catch (err) {
    await reserved?.release();
    await deps?.close();
    await claim.release();
    throw err;
  }
  const url = `http://127.0.0.1:${port}`;
  const started = deps;
  return {
    url,
    port,
    app,
    deps,
    request: (method, path, opts) => httpRequest(url, method, path, opts),
    async close() {
      await app.close();
      await started.close();
      await claim.release();
    },
  };
}

/**
 * Prints where a server's start went when it took over 10 s: twice this suite saw one test file's
 * start take ~70 s (every other run of it: under 1 s), and the spec reporter tells no more.
 */
function slowStartLog(file: string) {
  const started = performance.now();
  let last = started;
  const steps: string[] = [];
  return {
    mark(step: string) {
      const now = performance.now();
      steps.push(`${step} ${Math.round(now - last)} ms`);
      last = now;
    },
    done() {
      const total = performance.now() - started;
      if (total > 10_000) process.stderr.write(`startServer took ${Math.round(total)} ms for ${file}: ${steps.join(', ')}\n`);
    },
  };
}

export async function httpRequest(base: string, method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(base + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed, text };
}
