// Passwords: scrypt from node:crypto (memory-hard), a random salt per password, constant-time check.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';
import pLimit from 'p-limit';

export const MIN_PASSWORD_LENGTH = 12;

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

// N = 2^15, r = 8: 32 MiB and ~50 ms per hash on these machines; stored with the hash so they can rise.
export const PRODUCTION_SCRYPT: ScryptParams = { N: 32768, r: 8, p: 1 };
const MAXMEM = 64 * 1024 * 1024;

/** How the services hash and check passwords; injectable so tests can count calls or hash cheaply. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
}

/**
 * Derivations run at most one per CPU, and never on all of libuv's threads (UV_THREADPOOL_SIZE, 4
 * unless set). Each holds 128·N·r bytes (32 MiB) while it runs: more at once than the CPUs can run
 * finish no sooner, they only hold more memory (8 sign-ins at once on 2 CPUs: the same 0.37 s for
 * all, a peak of +65 MiB instead of +129; BENCHMARKS.md, "Memory"), and one of the pool's threads
 * stays free for file reads and DNS lookups during a burst of sign-ins. On 4 CPUs or more that is
 * 3 at once where 4 ran before: raise UV_THREADPOOL_SIZE for more (docs/operations.md).
 */
const POOL_THREADS = Number(process.env.UV_THREADPOOL_SIZE) || 4;
export const DERIVATIONS_AT_ONCE = Math.max(1, Math.min(availableParallelism(), POOL_THREADS - 1));
const derivations = pLimit(DERIVATIONS_AT_ONCE);

/** The derivations running and those waiting for their turn (for tests). */
export const derivationsNow = () => ({ running: derivations.activeCount, waiting: derivations.pendingCount });

function derive(password: string, salt: Buffer, params: ScryptOptions & { N: number }): Promise<Buffer> {
  return derivations(
    () => new Promise<Buffer>((resolve, reject) => scrypt(password.normalize('NFKC'), salt, 32, params, (err, key) => (err ? reject(err) : resolve(key)))),
  );
}

/**
 * The most parallel passes a stored hash may ask for. A derivation's time grows with N·r·p: MAXMEM
 * bounds N·r, this bounds p, so no stored hash can hold a derivation's turn for long (ours use 1).
 */
const MAX_P = 4;

/** Whether a hash may ask for `p` parallel passes: what a hasher makes, a stored hash must verify. */
const allowedP = (p: number) => p >= 1 && p <= MAX_P;

/** Hashes with the given cost; verifies with the cost stored in each hash, so any two hashers agree. */
export function createScryptHasher(params: ScryptParams): PasswordHasher {
  if (!allowedP(params.p)) throw new RangeError(`scrypt: p must be from 1 to ${MAX_P}`);
  return {
    async hash(password) {
      const salt = randomBytes(16);
      const key = await derive(password, salt, { ...params, maxmem: MAXMEM });
      return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
    },
    verify: verifyPassword,
  };
}

export const scryptHasher = createScryptHasher(PRODUCTION_SCRYPT);

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  if (!allowedP(Number(p))) throw new RangeError(`stored password hash: p must be from 1 to ${MAX_P}`);
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAXMEM,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
