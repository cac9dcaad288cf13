// TXT lookups for domain verification, through Node's resolver: the system's servers, or
// DNS_SERVERS (`127.0.0.1:5353`, the tests' local server) when set.
import { Resolver } from 'node:dns/promises';

export type TxtLookup = (name: string) => Promise<string[]>;

/** Codes that mean "no such record" rather than "the lookup failed". */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NOTFOUND', 'NODATA']);

export function createTxtLookup(servers: string[]): TxtLookup {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (servers.length > 0) resolver.setServers(servers);
  return async (name) => {
    try {
      // A TXT record may be split into strings of 255 bytes: its value is their concatenation.
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    } catch (err) {
      if (ABSENT.has((err as NodeJS.ErrnoException).code ?? '')) return [];
      throw err;
    }
  };
}
