/** A mistake in the command line itself: exit 2 with the usage. */
export class UsageError extends Error {}
