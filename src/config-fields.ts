// The kinds of value the configuration's variables take, shared by the schema in config.ts.
import { isIP } from 'node:net';
import { z } from 'zod';

export const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
export const posInt = (def: number) => int(def, 1);
export const url = z.url({ protocol: /^https?$/ });
// Callbacks may use any scheme (a browser extension's `chrome-extension://…`, a mobile app's own),
// except those that run or embed content where they are opened.
export const callbackUrl = z.url().refine((v) => !/^(javascript|vbscript|data|blob|file|about):/i.test(v), { message: 'scheme not allowed for a callback' });
/** An address, a CIDR range, or one of proxy-addr's names for the private ranges (what Fastify's `trustProxy` takes). */
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
export function isProxyEntry(v: string): boolean {
  if (PROXY_NAMES.has(v)) return true;
  const [address, bits, ...rest] = v.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}
export const booleanFlag = z
  .enum(['true', 'false', ''])
  .default('false')
  .transform((v) => v === 'true');
export const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));
