// How the service's Node process is started: `npm start`, `sigsvc serve` (bin/sigsvc.mjs), the
// benchmarks and the tests that start it as a process all use these flags (a test checks that the
// package scripts and the launcher agree).
//
// --liftoff-only: the embedded PostgreSQL (PGlite) is a WebAssembly build of Postgres. V8 compiles
// it with its baseline compiler (Liftoff) and then recompiles hot functions with its optimizing
// compiler in the background, which for Postgres' large functions took ~450 MB more for about a
// second after start (peak RSS 800 MB against ~330 MB in steady state). With the baseline compiler
// only, the peak is gone and queries measured as fast (BENCHMARKS.md). It concerns WebAssembly
// only: JavaScript is optimized as usual.
export const SERVICE_NODE_FLAGS = ['--liftoff-only'] as const;
