// Address ranges: the org's allowed networks and the next hop's "public address" rule, with
// Node's BlockList (no parsing of addresses by hand).
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import type { AllowedNetwork } from '../store/schema.ts';
import { badRequest } from '../kernel/errors.ts';

/** `a.b.c.d/n` or `x::/n` (a bare address is its own /32 or /128); undefined when it is not one. */
export function parseCidr(input: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', bits, ...rest] = input.trim().split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return undefined;
  const max = family === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  return { address, prefix, family: family === 4 ? 'ipv4' : 'ipv6' };
}

/** The settings' `allowedNetworks`: a bare CIDR string is a range the org owns. */
export function normalizeNetworks(input: (string | { cidr: string; shared?: boolean | undefined })[]): AllowedNetwork[] {
  return input.map((entry, i) => {
    const cidr = typeof entry === 'string' ? entry : entry.cidr;
    const parsed = parseCidr(cidr);
    if (!parsed) throw badRequest(`allowedNetworks[${i}] must be a CIDR range such as 203.0.113.0/24.`, { field: `allowedNetworks.${i}` });
    return { cidr: `${parsed.address}/${parsed.prefix}`, shared: typeof entry === 'string' ? false : (entry.shared ?? false) };
  });
}

export function blockListOf(networks: AllowedNetwork[]): BlockList {
  const list = new BlockList();
  for (const n of networks) {
    const parsed = parseCidr(n.cidr);
    if (parsed) list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return list;
}

/** Whether an address (a socket's; IPv4-mapped IPv6 read as IPv4) is in the list. */
export function contains(list: BlockList, address: string): boolean {
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  const family = isIP(plain);
  if (family === 0) return false;
  return list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

/** Loopback, private, link-local, CGNAT, documentation and other non-public ranges. */
const NOT_PUBLIC = blockListOf(
  [
    '0.0.0.0/8',
    '10.0.0.0/8',
    '100.64.0.0/10',
    '127.0.0.0/8',
    '169.254.0.0/16',
    '172.16.0.0/12',
    '192.0.0.0/24',
    '192.0.2.0/24',
    '192.168.0.0/16',
    '198.18.0.0/15',
    '198.51.100.0/24',
    '203.0.113.0/24',
    '224.0.0.0/3',
    '::/127',
    '100::/64',
    '2001:db8::/32',
    'fc00::/7',
    'fe80::/10',
    'ff00::/8',
  ].map((cidr) => ({ cidr, shared: false })),
);

export const isPublicAddress = (address: string): boolean => !contains(NOT_PUBLIC, address);

/**
 * Every address the next hop's name resolves to must be public (unless the operator allows
 * private ones): the gateway must not become a way into the operator's own network.
 */
export async function checkNextHop(host: string, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    throw badRequest(`nextHop.host ${host} does not resolve.`, { field: 'nextHop.host' });
  }
  const inner = addresses.filter((a) => !isPublicAddress(a));
  if (inner.length > 0) {
    throw badRequest(`nextHop.host ${host} resolves to a non-public address (${inner.join(', ')}).`, { field: 'nextHop.host' });
  }
}
