// Address ranges: the org's allowed networks (Node's BlockList) and the next hop's "public address"
// rule (ipaddr.js): no parsing of addresses by hand.
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { AllowedNetwork } from '../store/schema.ts';
import { badRequest } from '../kernel/errors.ts';
import type { AddressLookup } from './dns.ts';

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

/**
 * The widest range an org may list: an IPv4 /8 and an IPv6 /32 (a regional registry's smallest
 * allocation to a provider). Microsoft 365's and Google's sending ranges are all narrower (/14 to
 * /24, /36 to /48); `0.0.0.0/0` would let anyone on the internet connect without a password.
 */
export const WIDEST_PREFIX = { ipv4: 8, ipv6: 32 } as const;

/**
 * How wide a range is, counted as IPv4 when it is IPv4 written as IPv6: Node's BlockList matches
 * an IPv4 client against IPv4-mapped IPv6 ranges (`::ffff:0:0/96` is every IPv4 address), so such a
 * range is as wide as its IPv4 part; an IPv6 range that holds the whole mapped block is /0 of IPv4.
 */
function widthOf(parsed: { address: string; prefix: number; family: 'ipv4' | 'ipv6' }): { family: 'ipv4' | 'ipv6'; prefix: number } {
  if (parsed.family === 'ipv4') return parsed;
  const address = ipaddr.IPv6.parse(parsed.address);
  const mapped = ipaddr.IPv6.parse('::ffff:0:0');
  if (parsed.prefix <= 96 && mapped.match(address, parsed.prefix)) return { family: 'ipv4', prefix: 0 };
  if (parsed.prefix > 96 && address.isIPv4MappedAddress()) return { family: 'ipv4', prefix: parsed.prefix - 96 };
  return parsed;
}

/** The settings' `allowedNetworks`: a bare CIDR string is a range the org owns; none wider than WIDEST_PREFIX. */
export function normalizeNetworks(input: (string | { cidr: string; shared?: boolean | undefined })[]): AllowedNetwork[] {
  return input.map((entry, i) => {
    const cidr = typeof entry === 'string' ? entry : entry.cidr;
    const parsed = parseCidr(cidr);
    if (!parsed) throw badRequest(`allowedNetworks[${i}] must be a CIDR range such as 203.0.113.0/24.`, { field: `allowedNetworks.${i}` });
    const width = widthOf(parsed);
    if (width.prefix < WIDEST_PREFIX[width.family]) {
      throw badRequest(
        `allowedNetworks[${i}] ${cidr.trim()} is wider than /${WIDEST_PREFIX[width.family]} (${width.family === 'ipv4' ? 'IPv4' : 'IPv6'}): list your own servers' or your provider's ranges, or authenticate.`,
        { field: `allowedNetworks.${i}` },
      );
    }
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

/**
 * Whether an address is on the public internet: ipaddr.js's classification, as outbound webhooks
 * use it (src/outbound-webhooks/target.ts), so every reserved range of IANA's registries counts as
 * not public, IPv4-mapped (`::ffff:7f00:1`), NAT64, 6to4 and Teredo forms of private ones included.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** The next hop may not be used: its name does not resolve, or resolves to an address that is not public. */
export class NextHopRefused extends Error {
  /** The name resolves, to an address the gateway will not connect to (rather than not at all). */
  readonly notPublic: boolean;
  constructor(message: string, notPublic: boolean) {
    super(message);
    this.notPublic = notPublic;
  }
}

/**
 * The next hop's addresses, every one of them public (unless the operator allows private ones):
 * the gateway must not become a way into the operator's own network. Asked when the settings are
 * saved and again for every relay, whose connection goes to an address checked here (relay.ts), so
 * a name that resolves to a public address when saved and to a private one later (DNS rebinding)
 * gets nowhere.
 */
export async function resolveNextHop(host: string, allowPrivate: boolean, lookupAddresses: AddressLookup): Promise<string[]> {
  let addresses: string[] = [];
  if (isIP(host)) addresses = [host];
  else addresses = await lookupAddresses(host).catch(() => []);
  if (addresses.length === 0) throw new NextHopRefused(`The next hop ${host} does not resolve.`, false);
  const inner = allowPrivate ? [] : addresses.filter((a) => !isPublicAddress(a));
  if (inner.length > 0) throw new NextHopRefused(`The next hop ${host} resolves to a non-public address (${inner.join(', ')}).`, true);
  return addresses;
}

/** When the settings are saved: a next hop that resolves to a non-public address is a 400 (unless private ones are allowed). */
export async function checkNextHop(host: string, allowPrivate: boolean, lookupAddresses: AddressLookup): Promise<void> {
  if (allowPrivate) return;
  try {
    await resolveNextHop(host, false, lookupAddresses);
  } catch (err) {
    if (!(err instanceof NextHopRefused)) throw err;
    const message = err.message.replace(/^The next hop (\S+)/, 'nextHop.host $1');
    throw badRequest(message, { field: 'nextHop.host' });
  }
}
