// The one reader of the system's wall clock. Everything else takes a Clock as a dependency (the
// composition root passes this one; tests pass test/helpers/clock.ts), so time-dependent behaviour
// is tested by moving a clock, not by waiting; test/clock.test.ts keeps `Date.now()` and a bare
// `new Date()` out of the rest of src/.
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/**
 * The clock as milliseconds since the epoch, for the parts that count in numbers (token buckets):
 * the system clock's without a Date made per reading (the buckets read it on every request).
 */
export const millisOf = (clock: Clock): (() => number) => (clock === systemClock ? Date.now : () => clock().getTime());
