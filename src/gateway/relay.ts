// Relaying to an org's next hop with nodemailer's SMTP transport (pooled per org, settings version
// and address): the envelope as received (8BITMIME asked for when the client asked; SMTPUTF8 when
// an address needs it), and the next hop's answer handed back to the client as it came. The next
// hop's name is resolved for every message and its addresses checked (networks.ts); the connection
// goes to a checked address, with the name as the TLS server name.
import { once } from 'node:events';
import { isIP } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import type Nodemailer from 'nodemailer';
import type { GatewaySettingsRow } from '../store/schema.ts';
import type { Envelope } from './engine.ts';
import type { Spool } from './spool.ts';
import type { AddressLookup } from './dns.ts';
import { NextHopRefused, resolveNextHop } from './networks.ts';

export interface Relay {
  /** The next hop's answer; `refused` when the gateway would not connect to where its name now leads. */
  send(settings: GatewaySettingsRow, envelope: Envelope, parts: (Buffer | Spool)[]): Promise<{ code: number; message: string; refused?: string }>;
  close(): void;
}

type Transport = ReturnType<typeof Nodemailer.createTransport>;

// nodemailer is loaded with the first message relayed: a service whose gateway relays nothing
// (most of them) does not hold its code (a few MB of heap; BENCHMARKS.md, "Memory").
let loaded: Promise<typeof Nodemailer> | undefined;
const nodemailerModule = () => (loaded ??= import('nodemailer').then((m) => m.default));

export function createRelay(opts: { hostname: string; timeoutMs: number; allowPrivate: boolean; lookupAddresses: AddressLookup }): Relay {
  const transports = new Map<string, { version: number; address: string; transport: Transport }>();

  /** The org's pool, kept while its settings and one of the name's checked addresses stay the same. */
  function transportOf(nodemailer: typeof Nodemailer, s: GatewaySettingsRow, addresses: string[]): Transport {
    const known = transports.get(s.org_id);
    if (known?.version === s.version && addresses.includes(known.address)) return known.transport;
    known?.transport.close();
    const address = addresses[0] as string;
    const transport = nodemailer.createTransport({
      pool: true,
      maxConnections: 5,
      host: address,
      port: s.next_hop_port,
      secure: s.next_hop_secure,
      // The certificate is checked for the name (SNI too), not for the address connected to.
      ...(isIP(s.next_hop_host) ? {} : { servername: s.next_hop_host }),
      name: opts.hostname,
      connectionTimeout: opts.timeoutMs,
      greetingTimeout: opts.timeoutMs,
      socketTimeout: opts.timeoutMs * 4,
    } as Parameters<typeof nodemailer.createTransport>[0]);
    transports.set(s.org_id, { version: s.version, address, transport });
    return transport;
  }

  return {
    async send(settings, envelope, parts) {
      let addresses: string[];
      try {
        addresses = await resolveNextHop(settings.next_hop_host, opts.allowPrivate, opts.lookupAddresses);
      } catch (err) {
        if (!(err instanceof NextHopRefused)) throw err;
        // The sender's server keeps the message and tries again: the org can correct its next hop meanwhile.
        return { code: 451, message: `4.4.3 ${err.message} Not relayed.`, ...(err.notPublic ? { refused: err.message } : {}) };
      }
      const nodemailer = await nodemailerModule();
      const raw = concat(parts);
      try {
        const info = (await transportOf(nodemailer, settings, addresses).sendMail({
          envelope: { from: envelope.from, to: envelope.to, use8BitMime: envelope.use8BitMime } as { from: string; to: string[] },
          raw,
        })) as { response?: string };
        const response = info.response ?? '250 OK';
        return { code: 250, message: response.replace(/^2\d\d[ -]/, '') };
      } catch (err) {
        raw.destroy();
        const e = err as { responseCode?: number; response?: string; message: string };
        if (e.responseCode && e.responseCode >= 400) return { code: e.responseCode, message: (e.response ?? e.message).replace(/^\d{3}[ -]/, '') };
        // No answer from the next hop (unreachable, timed out): the sender's server tries again later.
        return { code: 451, message: `4.4.1 The next hop did not answer (${e.message})` };
      }
    },
    close() {
      for (const { transport } of transports.values()) transport.close();
      transports.clear();
    },
  };
}

/** The prefix and the spooled message as one stream, read in order; it stops when the reader goes away. */
function concat(parts: (Buffer | Spool)[]): Readable {
  const out = new PassThrough();
  const push = async (chunk: Buffer): Promise<boolean> => {
    if (out.destroyed) return false;
    if (!out.write(chunk)) await Promise.race([once(out, 'drain'), once(out, 'close')]);
    return !out.destroyed;
  };
  (async () => {
    for (const part of parts) {
      if (Buffer.isBuffer(part)) {
        if (!(await push(part))) return;
        continue;
      }
      const source = part.open();
      try {
        for await (const chunk of source) if (!(await push(chunk as Buffer))) return;
      } finally {
        source.destroy();
      }
    }
    out.end();
  })().catch((err: unknown) => out.destroy(err as Error));
  return out;
}
