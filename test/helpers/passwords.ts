// The tests' password hashing: scrypt at 1/32 of the production cost (N = 2^10: 1 MiB, ~2 ms instead
// of 32 MiB and ~50–100 ms), so that the suite's many sign-ins and accounts cost little CPU. The
// hashes carry their parameters, so either hasher verifies the other's; passwords.test.ts proves the
// service uses the production cost when nothing is injected.
import { createScryptHasher } from '../../src/lib/passwords.ts';

export const testPasswords = createScryptHasher({ N: 1024, r: 8, p: 1 });
