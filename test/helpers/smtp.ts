// A real SMTP server in the test process (smtp-server, from the nodemailer project) that collects
// what arrives. `down()` closes it (connections are refused, as when a mail server is away) and
// `up()` listens again on the same port; `refuseWith(code)` answers every message with an SMTP
// error (e.g. 550) until `refuseWith(undefined)`.
//
// The small MIME reader below is hand-written because no mail parser is among the project's
// packages (and adding one for tests alone is not worth a lockfile change): it reads what
// nodemailer writes (one text and one HTML part, quoted-printable, base64 or 7bit, encoded-word subjects).
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { waitFor } from './wait.ts';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  raw: string;
  headers: Record<string, string>;
}

export interface TestSmtp {
  port: number;
  /** SMTP_URL for the service (with a login the server accepts). */
  url: string;
  messages: ReceivedMail[];
  /** Mails to one address (whose subject matches, when given), in arrival order. */
  to(address: string, subject?: RegExp): ReceivedMail[];
  /** Waits for the n-th mail to an address (1 = the first), counting only subjects that match. */
  waitFor(address: string, n?: number, opts?: { subject?: RegExp; timeoutMs?: number }): Promise<ReceivedMail>;
  down(): Promise<void>;
  up(): Promise<void>;
  refuseWith(code: number | undefined): void;
  close(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const messages: ReceivedMail[] = [];
  let refuse: number | undefined;
  let port = 0;
  const options: SMTPServerOptions = {
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refuse !== undefined) {
          const err = Object.assign(new Error('refused by the test server'), { responseCode: refuse });
          return callback(err);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({
          ...parseMime(raw),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        callback();
      });
    },
  };
  let server = new SMTPServer(options);
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const address = server.server.address();
        port = typeof address === 'object' && address ? address.port : port;
        resolve();
      });
    });
  await listen();
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const to = (address: string, subject?: RegExp) =>
    messages.filter((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase()) && (!subject || subject.test(m.subject)));
  return {
    port,
    url: `smtp://mailer:secret@127.0.0.1:${port}`,
    messages,
    to,
    waitFor: (address, n = 1, opts = {}) => waitFor(() => to(address, opts.subject)[n - 1], `mail #${n} to ${address}`, opts.timeoutMs ?? 30_000),
    down: close,
    async up() {
      server = new SMTPServer(options);
      await listen();
    },
    refuseWith(code) {
      refuse = code;
    },
    close,
  };
}

function parseMime(raw: string): Omit<ReceivedMail, 'from' | 'to' | 'raw'> {
  const { headers, body } = splitHeaders(raw);
  const parts: { type: string; content: string }[] = [];
  collect(headers, body, parts);
  return {
    headers,
    subject: decodeWords(headers.subject ?? ''),
    text: parts.find((p) => p.type.startsWith('text/plain'))?.content ?? '',
    html: parts.find((p) => p.type.startsWith('text/html'))?.content ?? '',
  };
}

function splitHeaders(raw: string): { headers: Record<string, string>; body: string } {
  const at = raw.search(/\r?\n\r?\n/);
  const head = at < 0 ? raw : raw.slice(0, at);
  const body = at < 0 ? '' : raw.slice(at).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function collect(headers: Record<string, string>, body: string, parts: { type: string; content: string }[]): void {
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.startsWith('multipart/') && boundary) {
    for (const section of body.split(`--${boundary}`).slice(1)) {
      if (section.startsWith('--')) break;
      const inner = splitHeaders(section.replace(/^\r?\n/, ''));
      collect(inner.headers, inner.body, parts);
    }
    return;
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  let content = body;
  if (encoding === 'quoted-printable') content = decodeQp(body);
  else if (encoding === 'base64') content = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  parts.push({ type: type.toLowerCase(), content: content.replace(/\r\n/g, '\n').replace(/\n$/, '') });
}

function decodeQp(s: string): string {
  const bytes: number[] = [];
  const text = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '=' && /^[0-9A-F]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      for (const b of Buffer.from(c, 'utf8')) bytes.push(b);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`). */
function decodeWords(s: string): string {
  return s
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_m, _charset: string, enc: string, data: string) =>
      enc.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQp(data.replace(/_/g, ' ')),
    );
}
