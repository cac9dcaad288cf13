// Where a delivery may go (docs/webhooks.md, "Where deliveries may go"): `https` URLs whose host
// resolves to public addresses only, unless WEBHOOK_ALLOW_PRIVATE=true (tests, intranets), which
// allows `http` and private addresses too. The check runs when an endpoint is saved and again on
// the resolved address of every delivery; the request then connects to the very address checked
// (send.ts pins it), so a name that resolves to a public address for the check and to a private one
// for the connection (DNS rebinding) gets nowhere. ipaddr.js classifies addresses (every reserved
// range of IANA's registries, IPv4-mapped IPv6 included) so that no list is kept by hand here.
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

/** Whether an address is on the public internet (not loopback, private, link-local, reserved…). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
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
