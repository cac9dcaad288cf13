import { Redis } from 'ioredis';

export const redisUrl = () => process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** Whether the machine's Redis answers; under CI=true a missing Redis is a failure, not a skip. */
export async function redisAvailable(): Promise<boolean> {
  const r = new Redis(redisUrl(), { lazyConnect: true, connectTimeout: 1500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await r.connect();
    await r.ping();
    return true;
  } catch {
    if (process.env.CI === 'true') throw new Error(`Redis is not reachable at ${redisUrl()} (required under CI)`);
    return false;
  } finally {
    r.disconnect();
  }
}
