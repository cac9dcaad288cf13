// Known link scanners of mail security products (DECISIONS wave 3, "Clicks"): a click from one of
// these is kept, marked `suspectedBot`. Two kinds of evidence, each entry with where it was read:
//
// Address ranges
// - Microsoft Defender for Office 365 Safe Links / Exchange Online Protection: the
//   *.protection.outlook.com ranges, endpoint sets 9 and 10 of Microsoft's list,
//   https://learn.microsoft.com/en-us/microsoft-365/enterprise/urls-and-ip-address-ranges
//   (as collected, with that citation, in
//   https://github.com/warmbly/warmbly/blob/main/tracking/scanner-networks.txt). Exchange Online's
//   own ranges are left out on purpose: Outlook on the web fetches images through them for people.
// - Barracuda Email Gateway Defense: the per-region ranges Barracuda publishes for its filtering
//   tier (same compilation, https://github.com/warmbly/warmbly/blob/main/tracking/scanner-networks.txt).
// - Proofpoint, Mimecast and Cisco Secure Email publish their networks as whole ASNs (Proofpoint
//   AS22843, AS26211, AS52129; Mimecast AS30031, AS39588, AS42427, AS60492; Cisco IronPort AS16417,
//   same source); we hold no ASN database, so they are caught by user agent (below) and by the
//   timing rule (clicks/timing.ts), which is how the field catches scanners that fetch every link
//   of a message within seconds (https://github.com/mautic/mautic/issues/16263,
//   https://github.com/resend/resend-node/issues/901).
//
// User agents
// - Safe Links' time-of-click check identifies as Microsoft Office ("ms-office", "Microsoft
//   Office"): https://check.live-direct-marketing.online/blog/microsoft-defender-link-click-pattern
// - Detonation sandboxes run headless Chrome (same page); products that name themselves in the
//   user agent (Mimecast, Proofpoint, Barracuda, IronPort/Cisco) and plain HTTP libraries are no
//   person's browser either.
import { BlockList, isIP } from 'node:net';

export const SCANNER_RANGES: readonly { cidr: string; product: string }[] = [
  { cidr: '40.92.0.0/15', product: 'Microsoft Defender for Office 365' },
  { cidr: '40.107.0.0/16', product: 'Microsoft Defender for Office 365' },
  { cidr: '52.100.0.0/14', product: 'Microsoft Defender for Office 365' },
  { cidr: '52.238.78.88/32', product: 'Microsoft Defender for Office 365' },
  { cidr: '104.47.0.0/17', product: 'Microsoft Defender for Office 365' },
  { cidr: '2a01:111:f400::/48', product: 'Microsoft Defender for Office 365' },
  { cidr: '2a01:111:f403::/48', product: 'Microsoft Defender for Office 365' },
  { cidr: '3.24.133.128/25', product: 'Barracuda Email Gateway Defense' },
  { cidr: '15.222.16.128/25', product: 'Barracuda Email Gateway Defense' },
  { cidr: '35.157.190.224/27', product: 'Barracuda Email Gateway Defense' },
  { cidr: '18.185.115.192/26', product: 'Barracuda Email Gateway Defense' },
  { cidr: '18.184.203.224/27', product: 'Barracuda Email Gateway Defense' },
  { cidr: '13.200.136.128/25', product: 'Barracuda Email Gateway Defense' },
  { cidr: '35.176.92.96/27', product: 'Barracuda Email Gateway Defense' },
  { cidr: '18.133.136.128/26', product: 'Barracuda Email Gateway Defense' },
  { cidr: '18.133.136.96/27', product: 'Barracuda Email Gateway Defense' },
  { cidr: '209.222.82.0/24', product: 'Barracuda Email Gateway Defense' },
];

export const SCANNER_USER_AGENTS: readonly { pattern: RegExp; product: string }[] = [
  { pattern: /\bms-office\b|Microsoft Office|MSOffice/i, product: 'Microsoft Defender for Office 365' },
  { pattern: /HeadlessChrome/i, product: 'a detonation sandbox' },
  { pattern: /Mimecast/i, product: 'Mimecast' },
  { pattern: /Proofpoint/i, product: 'Proofpoint' },
  { pattern: /Barracuda/i, product: 'Barracuda' },
  { pattern: /IronPort|Cisco Secure Email/i, product: 'Cisco Secure Email' },
  { pattern: /^(curl|Wget|python-requests|Go-http-client|okhttp|Java)\b/i, product: 'an HTTP library' },
];

const ranges = new BlockList();
for (const { cidr } of SCANNER_RANGES) {
  const [net, bits] = cidr.split('/') as [string, string];
  ranges.addSubnet(net, Number(bits), isIP(net) === 6 ? 'ipv6' : 'ipv4');
}

/**
 * A client's address as clicks judge and keep it: an IPv4 client of a dual-stack listener
 * (`::ffff:a.b.c.d`) as its IPv4 address, and without a zone id (`fe80::1%eth0`), which is no
 * `inet` for the truncation of old addresses (repositories/clicks.ts).
 */
export function plainAddress(address: string): string {
  if (!address.includes(':')) return address;
  const zone = address.indexOf('%');
  const zoneless = zone < 0 ? address : address.slice(0, zone);
  return /^::ffff:/i.test(zoneless) && isIP(zoneless.slice(7)) === 4 ? zoneless.slice(7) : zoneless;
}

/** The product a request looks like, or null: by address range (`plain`: as plainAddress gives it), then by user agent. */
export function scannerOf(plain: string, userAgent: string | undefined): string | null {
  const family = isIP(plain);
  if (family !== 0 && ranges.check(plain, family === 6 ? 'ipv6' : 'ipv4')) {
    return (
      SCANNER_RANGES.find(({ cidr }) => {
        const one = new BlockList();
        const [net, bits] = cidr.split('/') as [string, string];
        one.addSubnet(net, Number(bits), isIP(net) === 6 ? 'ipv6' : 'ipv4');
        return one.check(plain, family === 6 ? 'ipv6' : 'ipv4');
      })?.product ?? 'a mail security network'
    );
  }
  if (!userAgent) return 'no user agent';
  return SCANNER_USER_AGENTS.find(({ pattern }) => pattern.test(userAgent))?.product ?? null;
}
