// Relaying to an org's next hop with nodemailer's SMTP transport (pooled per org and settings
// version): the envelope as received (8BITMIME asked for when the client asked; SMTPUTF8 when an
// address needs it), and the next hop's answer handed back to the client as it came.
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import type Nodemailer from 'nodemailer';
import type { GatewaySettingsRow } from '../store/schema.ts';
import type { Envelope } from './engine.ts';
import type { Spool } from './spool.ts';

export interface Relay {
  send(settings: GatewaySettingsRow, envelope: Envelope, parts: (Buffer | Spool)[]): Promise<{ code: number; message: string }>;
  close(): void;
}

type Transport = ReturnType<typeof Nodemailer.createTransport>;

// nodemailer is loaded with the first message relayed: a service whose gateway relays nothing
// (most of them) does not hold its code (a few MB of heap; BENCHMARKS.md, "Memory").
let loaded: Promise<typeof Nodemailer> | undefined;
const nodemailerModule = () => (loaded ??= import('nodemailer').then((m) => m.default));

export function createRelay(opts: { hostname: string; timeoutMs: number }): Relay {
  const transports = new Map<string, { version: number; transport: Transport }>();

  function transportOf(nodemailer: typeof Nodemailer, s: GatewaySettingsRow): Transport {
    const known = transports.get(s.org_id);
    if (known?.version === s.version) return known.transport;
    known?.transport.close();
    const transport = nodemailer.createTransport({
      pool: true,
      maxConnections: 5,
      host: s.next_hop_host,
      port: s.next_hop_port,
      secure: s.next_hop_secure,
      name: opts.hostname,
      connectionTimeout: opts.timeoutMs,
      greetingTimeout: opts.timeoutMs,
      socketTimeout: opts.timeoutMs * 4,
    } as Parameters<typeof nodemailer.createTransport>[0]);
    transports.set(s.org_id, { version: s.version, transport });
    return transport;
  }

  return {
    async send(settings, envelope, parts) {
      const nodemailer = await nodemailerModule();
      const raw = concat(parts);
      try {
        const info = (await transportOf(nodemailer, settings).sendMail({
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
