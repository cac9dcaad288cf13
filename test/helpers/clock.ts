/**
 * A clock for startServer's `clock` that stands still unless the test moves it, so nothing a test
 * checks depends on how fast the machine runs it. It starts at the real time (trials, keys and
 * tokens made by the test look current), or at `start`.
 */
export function manualClock(start = Date.now()): { now: () => Date; advance: (ms: number) => void } {
  let at = start;
  return {
    now: () => new Date(at),
    advance: (ms) => {
      at += ms;
    },
  };
}
