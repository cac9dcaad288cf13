// TXT lookups for domain verification and the next hop's addresses, through Node's resolver: the system's servers, or
// DNS_SERVERS (`127.0.0.1:5353`, the tests' local server) when set.
import { lookup, Resolver } from 'node:dns/promises';

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

export type AddressLookup = (name: string) => Promise<string[]>;

/**
 * A name's addresses (the next hop's): through DNS_SERVERS when set (A and AAAA records, so tests
 * answer from their local server and nothing asks a resolver off the machine), else the system's
 * resolver as a connection would use it (the hosts file included).
 */
export function createAddressLookup(servers: string[]): AddressLookup {
  if (servers.length === 0) return async (name) => (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  resolver.setServers(servers);
  const records = (query: Promise<string[]>) =>
    query.catch((err: NodeJS.ErrnoException) => {
      if (ABSENT.has(err.code ?? '')) return [];
      throw err;
    });
  return async (name) => {
    const [v4, v6] = await Promise.all([records(resolver.resolve4(name)), records(resolver.resolve6(name))]);
    return [...v4, ...v6];
  };
}
