// The injected clock: services read the time through it, so tests can move it (test/helpers/clock.ts).
export type Clock = () => Date;
