// The SMTP signature gateway's variables (docs/gateway.md), part of config.ts's one schema.
import { z } from 'zod';
import { booleanFlag, optionalString, posInt } from './config-fields.ts';

export const gatewayFields = {
  GATEWAY_PORT: optionalString
    .transform((v) => (v === undefined ? undefined : Number(v)))
    .pipe(z.number().int().min(0).max(65535).optional())
    .describe("the SMTP signature gateway's port (`sigsvc gateway` uses 2525 when unset); set: `npm start` runs the gateway in the same process too"),
  GATEWAY_HOST: optionalString.describe("the SMTP gateway's listen address (default `HOST`)"),
  GATEWAY_DOMAIN: optionalString
    .refine((v) => v === undefined || /^[a-z0-9.-]+$/i.test(v), { message: 'must be a domain name' })
    .describe("the gateway's public name: each org's smart host is `<gatewayId>.<GATEWAY_DOMAIN>` (a wildcard certificate), which names the org by SNI"),
  GATEWAY_TLS_CERT: optionalString.describe("PEM certificate file for the gateway's STARTTLS; unset: no STARTTLS, and AUTH from loopback only"),
  GATEWAY_TLS_KEY: optionalString.describe('PEM private key file of GATEWAY_TLS_CERT'),
  GATEWAY_MAX_BYTES: posInt(50 * 1024 * 1024).describe('largest message the gateway accepts (552 above it)'),
  GATEWAY_MAX_CONNECTIONS: posInt(200).describe('SMTP connections the gateway holds at once; more are answered 421'),
  GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: posInt(20).describe('SMTP connections the gateway holds at once from one client address; more are answered 421'),
  GATEWAY_SOCKET_TIMEOUT_MS: posInt(60000).describe('an SMTP client silent this long is disconnected'),
  GATEWAY_RELAY_TIMEOUT_MS: posInt(15000).describe('how long the gateway waits to connect to a next hop and for its greeting (then 451: the sender retries)'),
  GATEWAY_FAIL_CLOSED: booleanFlag.describe('true: a message whose stamping failed is refused with 451; false: it goes on unstamped (logged and counted)'),
  GATEWAY_ALLOW_PRIVATE_NEXT_HOP: booleanFlag.describe("true: an org's next hop may resolve to a private or loopback address (tests, intranets)"),
};

type GatewayEnv = z.output<z.ZodObject<typeof gatewayFields>>;

export function gatewayOf(env: GatewayEnv) {
  return {
    port: env.GATEWAY_PORT,
    host: env.GATEWAY_HOST,
    domain: env.GATEWAY_DOMAIN?.toLowerCase(),
    tlsCert: env.GATEWAY_TLS_CERT,
    tlsKey: env.GATEWAY_TLS_KEY,
    maxBytes: env.GATEWAY_MAX_BYTES,
    maxConnections: env.GATEWAY_MAX_CONNECTIONS,
    maxConnectionsPerAddress: env.GATEWAY_MAX_CONNECTIONS_PER_ADDRESS,
    socketTimeoutMs: env.GATEWAY_SOCKET_TIMEOUT_MS,
    relayTimeoutMs: env.GATEWAY_RELAY_TIMEOUT_MS,
    failClosed: env.GATEWAY_FAIL_CLOSED,
    allowPrivateNextHop: env.GATEWAY_ALLOW_PRIVATE_NEXT_HOP,
  };
}
