// The SMTP listener (smtp-server): STARTTLS with GATEWAY_TLS_CERT / _KEY, AUTH PLAIN and LOGIN
// with an org's gateway credentials (without TLS only from loopback), the org's allowed networks,
// the size limit, timeouts and a connection limit. It never relays for a client that proved no
// org (docs/gateway.md, "Who may relay"): such a client hears 530 at MAIL FROM.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import type { Logger } from '../log.ts';
import type { GatewaySettingsRow } from '../store/schema.ts';
import type { ConnectionProof, Engine } from './engine.ts';
import { blockListOf, contains } from './networks.ts';
import { passwordMatches } from './settings.ts';
import { Spool } from './spool.ts';

export interface ListenerOptions {
  port: number;
  host: string;
  hostname: string;
  tls: { certFile: string; keyFile: string } | undefined;
  /** `GATEWAY_DOMAIN`: a session whose SNI is `<gatewayId>.<domain>` names that org. */
  domain: string | undefined;
  maxBytes: number;
  maxConnections: number;
  /** Connections held at once from one client address; more are answered 421. */
  maxConnectionsPerAddress: number;
  socketTimeoutMs: number;
}

export interface ListenerDeps {
  logger: Logger;
  engine: Engine;
  lookups: {
    byGatewayId(gatewayId: string): Promise<GatewaySettingsRow | undefined>;
    withNetworks(): Promise<GatewaySettingsRow[]>;
  };
}

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });
const isLoopback = (address: string) => /^(127\.|::1$|::ffff:127\.)/.test(address);

/** What each session proved so far: its address's networks, then its SNI name or AUTH credentials. */
function createProofs(domain: string | undefined, lookups: ListenerDeps['lookups']) {
  const proofs = new Map<string, ConnectionProof>();
  return {
    get: (session: SMTPServerSession) => proofs.get(session.id),
    forget: (session: SMTPServerSession) => void proofs.delete(session.id),

    /** The session's proof, made from its address on first use. */
    async of(session: SMTPServerSession): Promise<ConnectionProof> {
      const known = proofs.get(session.id);
      if (known) return known;
      const networks = (await lookups.withNetworks()).flatMap((s) => {
        const hits = s.allowed_networks.filter((n) => contains(blockListOf([n]), session.remoteAddress));
        return hits.length === 0 ? [] : [{ orgId: s.org_id, shared: hits.every((n) => n.shared) }];
      });
      const proof: ConnectionProof = { remoteAddress: session.remoteAddress, helo: session.hostNameAppearsAs || '', provenOrg: undefined, networks };
      proofs.set(session.id, proof);
      return proof;
    },

    /** The org of the session's SNI name, when it is one of ours and the address is in its networks. */
    async sniOrg(session: SMTPServerSession, proof: ConnectionProof): Promise<string | undefined> {
      const name = typeof session.servername === 'string' ? session.servername.toLowerCase() : '';
      if (!domain || !name.endsWith(`.${domain}`)) return undefined;
      const settings = await lookups.byGatewayId(name.slice(0, -domain.length - 1));
      return settings && proof.networks.some((n) => n.orgId === settings.org_id) ? settings.org_id : undefined;
    },
  };
}

/** DATA: the whole message spooled, then the engine's answer (the next hop's) is the client's. */
async function receive(
  stream: Readable & { sizeExceeded?: boolean },
  session: SMTPServerSession,
  proof: ConnectionProof | undefined,
  ctx: { engine: Engine; maxBytes: number; correlationId: string; spool: Spool },
): Promise<{ code: number; message: string }> {
  await ctx.spool.fill(stream);
  if (!proof) return { code: 503, message: '5.5.1 No sender' };
  if (stream.sizeExceeded || ctx.spool.size > ctx.maxBytes) return { code: 552, message: `5.3.4 The message is larger than ${ctx.maxBytes} bytes` };
  const mailFrom = session.envelope.mailFrom;
  const mailArgs: Record<string, unknown> = (mailFrom ? mailFrom.args : false) || {};
  // smtp-server upper-cases the parameters' names, not their values: `BODY=8bitmime` is as good.
  const envelope = {
    from: mailFrom ? mailFrom.address : '',
    to: session.envelope.rcptTo.map((r) => r.address),
    use8BitMime: String(mailArgs.BODY ?? '').toUpperCase() === '8BITMIME',
    smtputf8: Boolean(mailArgs.SMTPUTF8),
  };
  return ctx.engine.handle(proof, envelope, ctx.spool, ctx.correlationId);
}

/**
 * Connections per client address: one client that holds GATEWAY_MAX_CONNECTIONS open (idle, with
 * NOOPs) would lock every org out, so each address gets its share. smtp-server has a limit for the
 * whole server only (maxClients).
 */
function createAddressLimit(max: number) {
  const held = new Map<string, number>();
  const counted = new Set<string>();
  return {
    /** Whether the session may go on; counted until `release`. */
    take(session: SMTPServerSession): boolean {
      const n = held.get(session.remoteAddress) ?? 0;
      if (n >= max) return false;
      held.set(session.remoteAddress, n + 1);
      counted.add(session.id);
      return true;
    },
    release(session: SMTPServerSession): void {
      if (!counted.delete(session.id)) return;
      const n = (held.get(session.remoteAddress) ?? 1) - 1;
      if (n > 0) held.set(session.remoteAddress, n);
      else held.delete(session.remoteAddress);
    },
  };
}

export async function startListener(options: ListenerOptions, deps: ListenerDeps): Promise<{ port: number; close(): Promise<void> }> {
  const { logger, engine, lookups } = deps;
  const proofs = createProofs(options.domain, lookups);
  const perAddress = createAddressLimit(options.maxConnectionsPerAddress);
  const tls = options.tls ? { key: readFileSync(options.tls.keyFile), cert: readFileSync(options.tls.certFile) } : undefined;
  const server = new SMTPServer({
    name: options.hostname,
    banner: 'sigsvc signature gateway',
    size: options.maxBytes,
    maxClients: options.maxConnections,
    socketTimeout: options.socketTimeoutMs,
    closeTimeout: 10_000,
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: true,
    // Enforced in onAuth: credentials in clear text only from loopback.
    allowInsecureAuth: true,
    disableReverseLookup: true,
    ...(tls ? { key: tls.key, cert: tls.cert } : { disabledCommands: ['STARTTLS'] }),
    logger: false,
    onConnect(session, callback) {
      if (!perAddress.take(session)) return callback(smtpError(421, '4.7.0 Too many connections from your address; try again later'));
      callback();
    },
    onAuth(auth, session, callback) {
      if (!session.secure && !isLoopback(session.remoteAddress)) return callback(smtpError(538, '5.7.11 Encryption required: STARTTLS first'));
      lookups
        .byGatewayId(auth.username ?? '')
        .then(async (settings) => {
          if (!settings || !passwordMatches(settings, auth.password ?? '')) return callback(smtpError(535, '5.7.8 Authentication failed'));
          (await proofs.of(session)).provenOrg = settings.org_id;
          callback(null, { user: settings.org_id });
        })
        .catch((err: unknown) => callback(err as Error));
    },
    onMailFrom(address, session, callback) {
      proofs
        .of(session)
        .then(async (proof) => {
          proof.helo = session.hostNameAppearsAs || proof.helo;
          proof.provenOrg ??= await proofs.sniOrg(session, proof);
          if (!proof.provenOrg && proof.networks.length === 0) return callback(smtpError(530, '5.7.0 Authentication required'));
          // A proven org's sender is checked now, before the message is sent (again at DATA, with From).
          const refusal = proof.provenOrg ? await engine.refuseSender(proof.provenOrg, address.address, session.remoteAddress) : undefined;
          if (refusal) return callback(smtpError(refusal.code, refusal.message));
          callback();
        })
        .catch((err: unknown) => callback(err as Error));
    },
    onRcptTo(_address, session, callback) {
      if (session.envelope.rcptTo.length >= 500) return callback(smtpError(452, '4.5.3 Too many recipients'));
      callback();
    },
    onData(stream, session, callback) {
      const correlationId = randomUUID();
      const spool = new Spool(options.maxBytes);
      receive(stream, session, proofs.get(session), { engine, maxBytes: options.maxBytes, correlationId, spool })
        .then((reply) => (reply.code < 400 ? callback(null, reply.message) : callback(smtpError(reply.code, reply.message))))
        .catch((err: unknown) => {
          // The client went away mid-DATA (nothing was relayed), or the gateway failed.
          logger.warn({ err, correlationId, remoteAddress: session.remoteAddress }, 'gateway message not received or not handled');
          callback(smtpError(451, '4.3.0 The message could not be handled; try again later'));
        })
        .finally(() => void spool.dispose());
    },
    onClose(session) {
      proofs.forget(session);
      perAddress.release(session);
    },
  });
  server.on('error', (err) => logger.warn({ err }, 'gateway connection error'));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  logger.info({ port, host: options.host, tls: Boolean(tls) }, `SMTP gateway listening on ${options.host}:${port}`);
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
