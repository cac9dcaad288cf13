// Where a delivery may go (docs/webhooks.md, "Where deliveries may go"): `https` URLs whose host
// resolves to public addresses only, unless WEBHOOK_ALLOW_PRIVATE=true (tests, intranets), which
// allows `http` and private addresses too. The check runs when an endpoint is saved and again on
// the resolved address of every delivery; the request then connects to the very address checked
// (send.ts pins it), so a name that resolves to a public address for the check and to a private one
// for the connection (DNS rebinding) gets nowhere. ipaddr.js classifies addresses (every reserved
// range of IANA's registries) so that no list is kept by hand here; IPv6 forms of IPv4 addresses
// (mapped, compatible, NAT64, 6to4) are judged by the IPv4 address they carry.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}

export interface ResolvedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * The IPv4 address an IPv6 address carries, for the forms that reach it: IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96, deprecated but
 * still routed to the IPv4 address by some stacks: ipaddr.js calls ::7f00:1 unicast), NAT64's
 * well-known prefix (64:ff9b::/96) and 6to4 (2002::/16, the address in its next 32 bits).
 * Undefined for any other address.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = address.parts;
  const last = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const zeros = (n: number) => p.slice(0, n).every((x) => x === 0);
  if (zeros(5) && (p[5] === 0 || p[5] === 0xffff)) return last(p[6]!, p[7]!);
  if (zeros(4) && p[4] === 0xffff && p[5] === 0) return last(p[6]!, p[7]!);
  if (p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((x) => x === 0)) return last(p[6]!, p[7]!);
  if (p[0] === 0x2002) return last(p[1]!, p[2]!);
  return undefined;
}

/** Whether an address is on the public internet (not loopback, private, link-local, reserved…). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  // An IPv6 form of an IPv4 address is what that IPv4 address is (::127.0.0.1 is loopback).
  const v4 = parsed.kind() === 'ipv6' ? embeddedIPv4(parsed as ipaddr.IPv6) : undefined;
  return (v4 ?? parsed).range() === 'unicast';
}

/** The URL's shape alone: a 400-worthy message, or undefined when it is acceptable. */
export function urlProblem(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return allowPrivate ? 'must be an http or https URL' : 'must be an https URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hash) return 'must not have a fragment';
  return undefined;
}

/** Resolves the URL's host and checks every address it has; answers the one to connect to. */
export async function resolveTarget(raw: string, allowPrivate: boolean): Promise<ResolvedTarget> {
  const problem = urlProblem(raw, allowPrivate);
  if (problem) throw new TargetRefused(`The URL ${problem}.`);
  const url = new URL(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new TargetRefused(`The host ${host} does not resolve.`);
    }
  }
  const first = addresses[0];
  if (!first) throw new TargetRefused(`The host ${host} does not resolve.`);
  if (!allowPrivate) {
    // Every address must be public: a name with one private address among public ones is refused.
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) throw new TargetRefused(`The host ${host} resolves to ${refused.address}, which is not a public address.`);
  }
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
