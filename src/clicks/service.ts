// The click route's work (DECISIONS wave 3, "Clicks"): tracked URLs made at render time, and a
// click verified, judged (scanner list, timing rule) and recorded in memory, written in batches
// once a second: no database round trip on the request's path, and a failed write keeps the rows
// for the next flush (clicks are never dropped). With the timing rule in Redis (timing.ts), the
// redirect does not wait for its judgement: the row joins the batch when Redis has answered. The
// clicks held unwritten are bounded: at the bound a click waits for a write to make room (`room`),
// and the route answers once it has (back-pressure instead of a buffer that grows while the
// database refuses). Released waiters each record one click, so the bound can be passed by as
// many clicks as were waiting (requests in flight).
import type { Db } from '../store/db.ts';
import type { Logger } from '../log.ts';
import { clicksRepo, type ClickRow } from '../store/repositories/clicks.ts';
import { isRefusedData } from '../store/errors.ts';
import { plainAddress, scannerOf } from './scanners.ts';
import { signClick, signPixelCampaign, verifyClick, verifyPixelCampaign, type ClickTarget, type PixelCampaign } from './token.ts';
import { RecentClicks, type ClickTiming } from './timing.ts';
import { every } from '../lib/every.ts';
import { LRUCache } from 'lru-cache';

const FLUSH_EVERY_MS = 1000;
const CHUNK = 500;
/** The clicks held unwritten (buffered, being written, being judged) before new ones wait for room (`room`). */
const MAX_UNWRITTEN = 100_000;
/** The verified tokens remembered, by the characters they and their destinations hold (a token is at most 4,096). */
const TOKENS_KEPT_CHARS = 4_000_000;

export function createClickService(deps: {
  db: Db;
  key: Buffer;
  baseUrl: string;
  clock: () => Date;
  logger: Logger;
  timing?: ClickTiming;
  /** Tests: the clicks held unwritten before new ones wait (default MAX_UNWRITTEN). */
  maxUnwritten?: number;
}) {
  const base = deps.baseUrl.replace(/\/$/, '');
  const timing = deps.timing ?? new RecentClicks();
  const maxUnwritten = deps.maxUnwritten ?? MAX_UNWRITTEN;
  let pending: ClickRow[] = [];
  /** Rows taken by a write and not yet in the table. */
  let writing = 0;
  /** Clicks waiting for room (`room`): released when a write brings the unwritten below the bound. */
  let waiting: (() => void)[] = [];
  const unwritten = () => pending.length + writing + judging.size;
  const release = () => {
    const released = waiting;
    waiting = [];
    for (const go of released) go();
  };
  /** Clicks whose timing judgement is still on its way from Redis. */
  const judging = new Set<Promise<void>>();
  let flushing: Promise<void> = Promise.resolve();
  // Tokens already verified, and what they name: a token is deterministic (one per user, link and
  // campaign) and the same one is followed again and again, while verifying costs an HMAC, a
  // base64 decode and a JSON parse (BENCHMARKS.md, "click"). The whole token is the key, its MAC
  // included, so only a token once verified hits; a forged one is verified (and refused) every time.
  const verified = new LRUCache<string, ClickTarget>({
    maxSize: TOKENS_KEPT_CHARS,
    sizeCalculation: (target, token) => token.length + target.destination.length,
  });

  /** Writes the clicks judged so far, after those whose judgement was on its way when called (not later ones: a steady stream of clicks must not hold the write back). */
  function flush(): Promise<void> {
    return judging.size > 0 ? Promise.all([...judging]).then(writeJudged) : writeJudged();
  }
  // In statements of at most CHUNK rows: one statement per flush grew with the click rate and held
  // the event loop for as long as the embedded database took to write it (every request waited);
  // when it still took a parameter per value, past 6,553 rows it also failed (BENCHMARKS.md, "click").
  function writeJudged(): Promise<void> {
    if (pending.length === 0) return flushing;
    const batch = pending;
    pending = [];
    writing += batch.length;
    flushing = flushing.then(async () => {
      for (let i = 0; i < batch.length; i += CHUNK) {
        const chunk = batch.slice(i, i + CHUNK);
        const { done, err } = await insertChunk(chunk);
        if (err !== undefined) {
          // The rows not written yet (those of the chunks before are in the table).
          const rest = batch.slice(i + done);
          deps.logger.warn({ err, rows: rest.length }, 'could not write clicks; keeping them for the next flush');
          writing -= rest.length;
          pending = rest.concat(pending);
          return;
        }
        writing -= chunk.length;
        if (waiting.length > 0 && unwritten() < maxUnwritten) release();
      }
    });
    return flushing;
  }
  // A chunk the database refuses for the data of a row (`isRefusedData`: it would refuse it again)
  // is written row by row, and only the rows refused alone for their data are dropped, each logged:
  // kept, such a row would head every later write and hold every org's clicks back for good (the
  // links are checked where they are made, lib/track-mark.ts; this guards against what that
  // misses). Any other failure keeps the rows. Answers how many of the chunk's rows are done with
  // (written or dropped), and the failure that stopped it, if one did.
  async function insertChunk(chunk: ClickRow[]): Promise<{ done: number; err?: unknown }> {
    try {
      await clicksRepo.insertMany(deps.db, chunk);
      return { done: chunk.length };
    } catch (err) {
      if (!isRefusedData(err)) return { done: 0, err };
    }
    for (const [done, row] of chunk.entries()) {
      try {
        await clicksRepo.insertMany(deps.db, [row]);
      } catch (err) {
        if (!isRefusedData(err)) return { done, err };
        deps.logger.error({ err, click: row }, 'the database refused a click row for its data; dropped it so that the others are written');
      }
    }
    return { done: chunk.length };
  }
  const timer = setInterval(() => void flush(), FLUSH_EVERY_MS);
  timer.unref();

  return {
    /** The pixel's `c` parameter for a campaign, and what one names (null: not ours). */
    pixelCampaign: (p: PixelCampaign) => signPixelCampaign(deps.key, p),
    campaignOfPixel: (c: string, userId: string) => verifyPixelCampaign(deps.key, c, userId),

    /** The tracked URL of a link in a user's signature. */
    trackUrl: (target: ClickTarget) => `${base}/v1/c/${signClick(deps.key, target)}`,

    /**
     * Undefined while there is room for a click; else (the database has not taken the clicks for
     * a while) what resolves once a write has made room: the click route waits for it before it
     * records, so the clicks held in memory stay bounded and none is dropped.
     */
    room(): Promise<void> | undefined {
      if (unwritten() < maxUnwritten) return undefined;
      // No flush from here: the timer's, once a second, retries; a flush per waiting click would
      // send the database (down, or slow) a failing write and a warning for each.
      return new Promise((resolve) => waiting.push(resolve));
    },

    /** The destination of a token (null: not ours), and, unless `record` is false, the click counted. */
    follow(token: string, request: { address: string; userAgent: string | undefined }, record: boolean): string | null {
      let target = verified.get(token);
      if (!target) {
        const checked = verifyClick(deps.key, token);
        if (!checked) return null;
        verified.set(token, checked);
        target = checked;
      }
      if (!record) return target.destination;
      const at = deps.clock();
      const address = plainAddress(request.address);
      const scanner = scannerOf(address, request.userAgent);
      const keep = (timed: boolean) => {
        pending.push({
          ...target,
          at,
          address,
          userAgent: request.userAgent ?? '',
          suspectedBot: scanner !== null || timed,
          botReason: scanner ? `scanner: ${scanner}` : timed ? 'timing: another link of the signature within 10 s' : null,
        });
      };
      // Both rules run, so the timing rule sees the scanner's fetches too.
      const timed = timing.judge(address, target.orgId, target.userId, target.destination, at.getTime());
      if (typeof timed === 'boolean') keep(timed);
      else {
        const judged = timed.then(keep);
        judging.add(judged);
        void judged.finally(() => judging.delete(judged));
      }
      return target.destination;
    },

    flush,
    async close(): Promise<void> {
      clearInterval(timer);
      await flush();
      // Clicks still waiting for room are recorded and written (or kept, if the database refuses).
      if (waiting.length > 0) {
        release();
        await new Promise((resolve) => setImmediate(resolve));
        await flush();
      }
    },
  };
}

export type ClickService = ReturnType<typeof createClickService>;

const TRUNCATE_EVERY_MS = 3_600_000;

/** Every hour, clicks older than the retention keep only their address's /24 or /48; returns what stops it. */
export function startTruncatingAddresses(deps: { db: Db; logger: Logger; clock: () => Date; retentionDays: number }): () => Promise<void> {
  return every(
    TRUNCATE_EVERY_MS,
    () => clicksRepo.truncateAddresses(deps.db, new Date(deps.clock().getTime() - deps.retentionDays * 86_400_000)).then(() => undefined),
    {
      logger: deps.logger,
      message: 'truncating old click addresses failed; the next run tries again',
    },
  );
}
