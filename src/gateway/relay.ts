// Relaying to an org's next hop with nodemailer's SMTP connection: the envelope as received
// (`BODY=8BITMIME` when the client asked; `SMTPUTF8` when the client gave it or an address needs
// it), and the next hop's answer handed back to the client as it came. The next hop's name is
// resolved for every message and its addresses checked (networks.ts); the connection goes to a
// checked address, with the name as the TLS server name.
//
// All recipients or none (docs/gateway.md, "Delivery"): the client heard 250 for each RCPT before
// the message came, so the gateway cannot answer per recipient; and once the next hop has the
// message for some recipients it cannot be taken back. So the message's bytes go only when the
// next hop accepted every recipient; when it refused one, the connection is dropped after its 354
// and before a byte of the message (a message whose data never ended is not delivered, RFC 5321
// 4.1.1.4), and the client hears the refusal: a 4xx when one was temporary (its server tries the
// whole message again later), else the 5xx (its server tells the sender which address failed).
// nodemailer's pooled transport hides the RCPT replies until the message is sent, which is too late;
// so the relay keeps its own few idle connections per next hop (`idle` below): a connection that
// delivered a message is kept for the next one, as a pool would, and one that did not is dropped.
import { Readable } from 'node:stream';
import { isIP } from 'node:net';
import type SMTPConnectionClass from 'nodemailer/lib/smtp-connection';
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

type Connection = InstanceType<typeof SMTPConnectionClass>;
type Answer = { code: number; message: string };
/** A recipient the next hop refused: nodemailer's error for its RCPT TO. */
type Rejected = { recipient?: string; responseCode?: number; response?: string; message: string };
/** The envelope as nodemailer keeps it while it sends: it records each refused RCPT on it. */
type SentEnvelope = { from: string; to: string[]; use8BitMime: boolean; rejectedErrors?: Rejected[] };

// nodemailer is loaded with the first message relayed: a service whose gateway relays nothing
// (most of them) does not hold its code (a few MB of heap; BENCHMARKS.md, "Memory").
let loaded: Promise<typeof SMTPConnectionClass> | undefined;
const connectionClass = () => (loaded ??= import('nodemailer/lib/smtp-connection').then((m) => m.default));

/**
 * Idle connections kept per next hop, and for how long: a new one costs a TCP and TLS handshake and
 * an EHLO. As many as the messages an org's clients send at once (the bench's 20: with 5 kept, the
 * other 15 connected anew for each message; BENCHMARKS.md, "The SMTP signature gateway").
 */
const IDLE_PER_HOP = 20;
const IDLE_MS = 30_000;

export function createRelay(opts: { hostname: string; timeoutMs: number; allowPrivate: boolean; lookupAddresses: AddressLookup }): Relay {
  const open = new Set<Connection>();
  /** By next hop (the org, its settings' version, the address, SMTPUTF8 kept or not): connections that delivered their last message. */
  const idle = new Map<string, { connection: Connection; timer: NodeJS.Timeout }[]>();

  /** An idle connection to the hop still open, if there is one. */
  function takeIdle(hop: string): Connection | undefined {
    const kept = idle.get(hop);
    for (let entry = kept?.pop(); entry; entry = kept?.pop()) {
      clearTimeout(entry.timer);
      if (open.has(entry.connection)) return entry.connection;
    }
    return undefined;
  }

  /** Keeps a connection that delivered its message for the hop's next one, or ends it when enough are kept. */
  function keepIdle(hop: string, connection: Connection): void {
    const kept = idle.get(hop) ?? [];
    if (kept.length >= IDLE_PER_HOP) {
      connection.quit();
      return;
    }
    const timer = setTimeout(() => {
      kept.splice(
        kept.findIndex((e) => e.connection === connection),
        1,
      );
      if (kept.length === 0 && idle.get(hop) === kept) idle.delete(hop);
      connection.quit();
    }, IDLE_MS);
    timer.unref();
    kept.push({ connection, timer });
    idle.set(hop, kept);
  }

  async function connect(s: GatewaySettingsRow, address: string, smtputf8: boolean): Promise<Connection> {
    const SMTPConnection = await connectionClass();
    const connection = new SMTPConnection({
      host: address,
      port: s.next_hop_port,
      secure: s.next_hop_secure,
      // The certificate is checked for the name (SNI too), not for the address connected to.
      ...(isIP(s.next_hop_host) ? {} : { servername: s.next_hop_host }),
      name: opts.hostname,
      connectionTimeout: opts.timeoutMs,
      greetingTimeout: opts.timeoutMs,
      socketTimeout: opts.timeoutMs * 4,
    });
    if (smtputf8) keepSmtpUtf8(connection);
    open.add(connection);
    // An error before the handshake ends the connect; one during a send reaches the send's callback too.
    await new Promise<void>((resolve, reject) => {
      connection.on('error', reject);
      connection.once('end', () => {
        open.delete(connection);
        reject(new Error('the next hop closed the connection'));
      });
      connection.connect((err) => (err ? reject(err) : resolve()));
    });
    return connection;
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
      const address = addresses[0] as string;
      const smtputf8 = envelope.smtputf8 === true;
      const hop = `${settings.org_id}:${settings.version}:${address}:${smtputf8}`;
      const reused = takeIdle(hop);
      for (let connection = reused; ; connection = undefined) {
        const progress = { read: false };
        try {
          connection ??= await connect(settings, address, smtputf8);
          const answer = await sendAll(connection, envelope, parts, progress);
          // Kept only after a delivery: after a refused recipient the connection is in DATA.
          if (answer.code < 400) keepIdle(hop, connection);
          else connection.close();
          return answer;
        } catch (err) {
          connection?.close();
          const e = err as { responseCode?: number; response?: string; message: string };
          if (e.responseCode && e.responseCode >= 400) return { code: e.responseCode, message: textOf(e.response ?? e.message) };
          // A kept connection the next hop had closed meanwhile, before a byte of the message: once
          // more on a new connection.
          if (connection === reused && reused !== undefined && !progress.read) continue;
          // No answer from the next hop (unreachable, timed out): the sender's server tries again later.
          return { code: 451, message: `4.4.1 The next hop did not answer (${e.message})` };
        }
      }
    },
    close() {
      for (const kept of idle.values()) for (const { timer } of kept) clearTimeout(timer);
      idle.clear();
      for (const connection of open) connection.close();
      open.clear();
    },
  };
}

/** One message on the connection, to every recipient or to none (see the top of the file). */
async function sendAll(connection: Connection, envelope: Envelope, parts: (Buffer | Spool)[], progress: { read: boolean }): Promise<Answer> {
  const sent: SentEnvelope = { from: envelope.from, to: envelope.to, use8BitMime: envelope.use8BitMime };
  let refused: Rejected[] | undefined;
  // nodemailer reads the message only after the next hop's 354, when every RCPT has its reply.
  const message = Readable.from(
    (async function* () {
      if (sent.rejectedErrors?.length) {
        refused = sent.rejectedErrors;
        throw new Error('a recipient was refused: the message is not sent');
      }
      progress.read = true;
      yield* bytesOf(parts);
    })(),
    { objectMode: false },
  );
  try {
    const info = await new Promise<{ response?: string; rejectedErrors?: Rejected[] }>((resolve, reject) =>
      connection.send(sent, message, (err, result) => (err ? reject(err) : resolve(result as never))),
    );
    // Only if nodemailer stopped recording refusals on the envelope: a duplicate beats a loss.
    if (info.rejectedErrors?.length) return answerFor(info.rejectedErrors, 'it went to the others');
    return { code: 250, message: textOf(info.response ?? '250 OK') };
  } catch (err) {
    if (refused) return answerFor(refused, 'nothing was relayed to any recipient');
    const rejected = (err as { rejectedErrors?: Rejected[] }).rejectedErrors;
    if (rejected?.length) return answerFor(rejected, 'nothing was relayed');
    message.destroy();
    throw err;
  }
}

/** The client's answer for recipients the next hop refused: a temporary refusal first, so the client retries. */
function answerFor(rejected: Rejected[], what: string): Answer {
  const chosen = rejected.find((r) => (r.responseCode ?? 451) < 500) ?? (rejected[0] as Rejected);
  const code = chosen.responseCode && chosen.responseCode >= 400 ? chosen.responseCode : 451;
  const others = rejected.length > 1 ? ` and ${rejected.length - 1} other recipient(s)` : '';
  const next = code < 500 ? 'try again later' : 'send it again without that address';
  return { code, message: `${textOf(chosen.response ?? chosen.message)} (the next hop refused <${chosen.recipient ?? '?'}>${others}; ${what}: ${next})` };
}

/** A reply's text without its code. */
const textOf = (response: string) => response.replace(/^\d{3}[ -]/, '');

/** The prefix and the spooled message in order; a spool's reader closes when the stream stops. */
async function* bytesOf(parts: (Buffer | Spool)[]): AsyncGenerator<Buffer> {
  for (const part of parts) {
    if (Buffer.isBuffer(part)) {
      yield part;
      continue;
    }
    const source = part.open();
    try {
      for await (const chunk of source) yield chunk as Buffer;
    } finally {
      source.destroy();
    }
  }
}

/**
 * nodemailer adds `SMTPUTF8` to MAIL FROM only for a non-ASCII address; a client gives it for UTF-8
 * header fields too (RFC 6531), and the contract keeps it. So when the client gave it, MAIL FROM
 * gets it as well, if the next hop offers the extension (else the message goes as nodemailer sends it).
 */
function keepSmtpUtf8(connection: Connection): void {
  const c = connection as unknown as { _sendCommand(str: string, logStr?: string): void; _supportedExtensions: string[] };
  const sendCommand = c._sendCommand.bind(c);
  c._sendCommand = (str, logStr) =>
    sendCommand(/^MAIL FROM:/i.test(str) && !/ SMTPUTF8\b/i.test(str) && c._supportedExtensions.includes('SMTPUTF8') ? `${str} SMTPUTF8` : str, logStr);
}
