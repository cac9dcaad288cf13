// How the service's Node process is started. The flags are listed once, in node-flags.json, and the
// environment it adds in node-env.json (plain JSON, so that bin/sigsvc.mjs can read them on any
// Node); `npm start` and `npm run cli` go through that launcher, and the benchmarks and the tests
// that start the service as a process use this module. Why each flag:
//
// --liftoff-only: the embedded PostgreSQL (PGlite) is a WebAssembly build of Postgres. V8 compiles
// it with its baseline compiler (Liftoff) and then recompiles hot functions with its optimizing
// compiler in the background, which for Postgres' large functions took ~450 MB more for about a
// second after start (peak RSS 800 MB against ~330 MB in steady state). With the baseline compiler
// only, the peak is gone and queries measured as fast (BENCHMARKS.md). It concerns WebAssembly
// only: JavaScript is optimized as usual.
//
// --max-semi-space-size=8: V8's young generation. Node runs without pointer compression, so by
// default each of its two semi-spaces grows to 64 MB under load: 128 MB of the service's ~340 MB
// in steady state, for a heap whose live data is ~65 MB. At 8 MB the peak in the benchmarks falls
// by ~90 MB; the price, read from --trace-gc under load, is scavenges taking ~0.9 µs per request
// instead of ~0.2 (of ~75 µs), which is within the noise of req/s on these machines. 4 MB saved
// 10 MB more but made org-apikey and render-warm cost ~78 % more CPU per request once the machine
// was quiet enough for the service to answer faster (requests in flight outlived a scavenge and
// were promoted): BENCHMARKS.md, "Memory".
//
// --heap-growing-percent=20: after a full collection V8 lets the old generation grow to 1.2× what
// survived before the next (its own factor, up to 4× on a machine with memory to spare, let the
// old generation reach ~100 MB for ~50 MB of live data, most of it requests' objects promoted by
// the smaller young generation). The whole benchmark then costs 14 full collections, ~190 ms of
// main-thread time in ~48 s of CPU (PerformanceObserver 'gc' entries); the work per collection
// grows with the live heap and the number of collections falls with it, so the share stays small
// as the caches fill.
//
// --no-allocation-site-pretenuring: V8 watches how many objects of each allocation site survive a
// scavenge, and once a site's survive often it allocates them straight in the old generation. On
// PostgreSQL + Redis it did so for the requests' own objects (Node's HTTP parser, the request and
// reply, Fastify's hooks): the old generation then filled with dead requests and was collected
// once a second (~9 ms each), and each scavenge took 0.8 ms instead of 0.45. Without it: no full
// collection in 6 s of render-warm, pixel and click 15–22 % less CPU per request in 4 pairs of
// 4 whole runs, the org routes and render-warm lower in 3 of 4 (bench/ab.ts's interleaved slices
// showed no difference beyond their spread); the embedded store's figures and both modes' peak
// RSS the same (BENCHMARKS.md, "Memory").
//
// node-env.json, the environment the launchers add (a variable the operator set wins):
//
// MALLOC_ARENA_MAX=2: glibc's malloc gives each thread that allocates an arena of its own, up to 8
// per core, and keeps what was freed in each for reuse; the service has a dozen threads (V8's
// compiler and GC helpers, libuv's pool, the render threads), whose arenas held 37–47 MB at the
// bench's peak, most of it free. With two arenas, malloc held ~22 MB less in all (BENCHMARKS.md,
// "Memory").
//
// MALLOC_MMAP_THRESHOLD_=131072 and MALLOC_TRIM_THRESHOLD_=131072: glibc's own starting values,
// fixed. By default, once a block of 128 KB or more that had a mapping of its own is freed, glibc
// raises both thresholds to its size, and blocks that large come from the arenas from then on,
// where what is freed stays. The embedded database's statements are such blocks (the clicks' batch
// of 500 rows is ~300 KB of parameters, tens of them a second): the arenas held 68–69 MB at the
// bench's peak, 39–44 with the thresholds fixed, and the peak fell 6–18 MB, for no CPU beyond the
// spread (BENCHMARKS.md, "Memory").
//
// NODE_COMPILE_CACHE=<project>/node_modules/.cache/node-compile-cache (set by the launchers too, not
// in node-env.json since it is a path): Node's module compile cache, which keeps on disk, per file,
// V8's code cache and, for TypeScript, the file with its types stripped. Node strips types with
// amaro, a WebAssembly build of swc that it loads on the first .ts file it has no cached output
// for, in each thread (the render threads too), and that then stays: ~12 MB of the main thread's
// memory and ~6 MB of a render thread's. With the cache filled by an earlier start (Node writes
// it when a process ends) no file needs stripping and amaro never loads. The cache is an
// optimisation Node skips quietly (a directory it cannot write, a file changed since: that
// file is stripped again). Under node_modules, not the system's temporary directory, so that no
// other user of the machine can place code in it.
import { fileURLToPath } from 'node:url';
import flags from './node-flags.json' with { type: 'json' };
import env from './node-env.json' with { type: 'json' };

export const SERVICE_NODE_FLAGS: readonly string[] = flags;
export const COMPILE_CACHE_DIR = fileURLToPath(new URL('../node_modules/.cache/node-compile-cache', import.meta.url));
export const SERVICE_NODE_ENV: Readonly<Record<string, string>> = { ...env, NODE_COMPILE_CACHE: COMPILE_CACHE_DIR };
