// The gateway's test parts: a real SMTP sink (smtp-server) standing for an org's next hop, that
// keeps each message's bytes and envelope as they arrived; an org set up for the gateway through
// the service; a nodemailer client; and a raw SMTP dialogue for what no well-behaved client does.
import { connect, type Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import nodemailer from 'nodemailer';
import { startServer, type TestServer } from './server.ts';
import { createOrg, createUser, type TestOrg } from './fixtures.ts';
import { waitFor } from './wait.ts';

export interface SinkMessage {
  from: string;
  to: string[];
  /** The MAIL FROM parameters (BODY, SMTPUTF8), upper-case keys. */
  args: Record<string, unknown>;
  raw: Buffer;
}

export interface Sink {
  port: number;
  messages: SinkMessage[];
  /** The session (the connection) each message of `messages` came on. */
  sessions: string[];
  /** Answers every message with this SMTP error until `undefined`. */
  refuseWith(code: number | undefined): void;
  /** Closes every connection it holds, as a server does with idle ones. */
  dropAll(): void;
  /** Closes, once, a connection that delivered before when its next MAIL FROM comes (a server that closed it as the relay wrote). */
  dropReused(): void;
  next(count: number): Promise<SinkMessage>;
  close(): Promise<void>;
}

/** A next hop; it refuses `reject450@…` (4xx) and `reject550@…` (5xx) at RCPT TO, as a full or unknown mailbox. */
export async function startSink(): Promise<Sink> {
  const messages: SinkMessage[] = [];
  const sessions: string[] = [];
  let refuse: number | undefined;
  let dropReused = false;
  const connections = () => (server as unknown as { connections: Set<{ id: string; close(): void }> }).connections;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    size: 200 * 1024 * 1024,
    onMailFrom(_address, session, callback) {
      if (dropReused && sessions.includes(session.id)) {
        dropReused = false;
        for (const c of connections()) if (c.id === session.id) c.close();
        return;
      }
      callback();
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('reject450@')) return callback(Object.assign(new Error('4.2.2 mailbox full'), { responseCode: 450 }));
      if (address.address.startsWith('reject550@')) return callback(Object.assign(new Error('5.1.1 no such user'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refuse !== undefined)
          return callback(Object.assign(new Error(refuse >= 500 ? '5.7.1 refused by the next hop' : '4.7.1 try later'), { responseCode: refuse }));
        sessions.push(session.id);
        const mailFrom = session.envelope.mailFrom;
        messages.push({
          from: mailFrom ? mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          args: (mailFrom ? mailFrom.args : false) || {},
          raw: Buffer.concat(chunks),
        });
        callback(null, 'queued as sink-1');
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    messages,
    sessions,
    refuseWith: (code) => {
      refuse = code;
    },
    dropAll: () => {
      for (const connection of connections()) connection.close();
    },
    dropReused: () => {
      dropReused = true;
    },
    next: (count) => waitFor(() => messages[count - 1], `message #${count} at the next hop`, 10_000),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface GatewayOrg extends TestOrg {
  domain: string;
  gatewayId: string;
  password: string;
  user: { userId: string; email: string; name: string };
}

export type GatewayOrgOptions = { domain: string; allowedNetworks?: unknown[]; m365TenantId?: string; stampInternal?: boolean; nextHopHost?: string };

/** An org with a verified domain, a user in it, and gateway settings whose next hop is the sink. */
export async function gatewayOrg(server: TestServer, sink: Sink, opts: GatewayOrgOptions): Promise<GatewayOrg> {
  const org = await createOrg(server);
  await server.deps.gateway.staffVerify({ staffId: 'test', correlationId: 'test' }, org.orgId, opts.domain);
  const user = await createUser(server, org, { email: `ada@${opts.domain}`, name: 'Ada Lovelace' });
  const res = await server.request('PUT', `/v1/orgs/${org.orgId}/integrations/gateway`, {
    key: org.key,
    body: {
      nextHop: { host: opts.nextHopHost ?? '127.0.0.1', port: sink.port, secure: false },
      allowedNetworks: opts.allowedNetworks ?? [],
      stampInternal: opts.stampInternal ?? false,
      ...(opts.m365TenantId ? { m365TenantId: opts.m365TenantId } : {}),
    },
  });
  if (res.status !== 200) throw new Error(`gateway settings: ${res.status} ${res.text}`);
  return {
    ...org,
    domain: opts.domain,
    gatewayId: res.body.gatewayId,
    password: res.body.password,
    user: { userId: user.userId, email: `ada@${opts.domain}`, name: 'Ada Lovelace' },
  };
}

/** nodemailer's SMTP client to the gateway, with an org's credentials (or none). */
export function client(port: number, auth?: { user: string; pass: string }) {
  return nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, ...(auth ? { auth } : {}) } as Parameters<
    typeof nodemailer.createTransport
  >[0]);
}

/** Sends raw bytes with an envelope; resolves with the reply, or the SMTP error's code and text. */
export async function sendRaw(
  transport: ReturnType<typeof client>,
  envelope: { from: string; to: string[]; use8BitMime?: boolean },
  raw: Buffer | string,
): Promise<{ code: number; response: string }> {
  try {
    const info = (await transport.sendMail({ envelope: envelope as { from: string; to: string[] }, raw })) as { response: string };
    return { code: Number(info.response.slice(0, 3)), response: info.response };
  } catch (err) {
    const e = err as { responseCode?: number; response?: string; message: string };
    return { code: e.responseCode ?? 0, response: e.response ?? e.message };
  }
}

/** A raw SMTP dialogue: send lines, read replies. */
export async function rawSession(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (buffer += d));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  /** The next complete reply (its last line has a space after the code). */
  const reply = () =>
    waitFor(
      () => {
        const m = /^(\d{3}) .*\r\n/m.exec(buffer);
        if (!m) return undefined;
        const end = m.index + m[0].length;
        const text = buffer.slice(0, end);
        buffer = buffer.slice(end);
        return text;
      },
      'an SMTP reply',
      10_000,
    );
  await reply();
  return {
    socket,
    reply,
    async command(line: string) {
      socket.write(`${line}\r\n`);
      return reply();
    },
    write: (data: string | Buffer) => socket.write(data),
    closed,
  };
}

/** A service with its gateway listening, and two orgs A and B, each with a sink of its own (one shared with `sharedSink`). */
export interface GatewaySuite {
  server: TestServer;
  port: number;
  sink: Sink;
  sinkB: Sink;
  a: GatewayOrg;
  b: GatewayOrg;
  close(): Promise<void>;
}

export async function startGatewaySuite(opts: {
  env?: Record<string, string>;
  a: GatewayOrgOptions;
  b: GatewayOrgOptions;
  sharedSink?: boolean;
}): Promise<GatewaySuite> {
  const sink = await startSink();
  const sinkB = opts.sharedSink ? sink : await startSink();
  const server = await startServer({ GATEWAY_ALLOW_PRIVATE_NEXT_HOP: 'true', ...opts.env });
  const listener = await server.deps.gateway.listen({ port: 0 });
  const a = await gatewayOrg(server, sink, opts.a);
  const b = await gatewayOrg(server, sinkB, opts.b);
  return {
    server,
    port: listener.port,
    sink,
    sinkB,
    a,
    b,
    async close() {
      await listener.close();
      await server.close();
      await sink.close();
      if (sinkB !== sink) await sinkB.close();
    },
  };
}
