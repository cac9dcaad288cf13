// A lingering close (RFC 9112 section 9.6; Apache's and nginx's `lingering_close`). A client refused
// for its body's size is usually still sending that body. Closing the socket at once (what Node does
// after an answer with `Connection: close`) makes the kernel answer the bytes still arriving with a
// reset, which throws away our 413 before the client has read it: it sees EPIPE or ECONNRESET and
// never the answer. So the answer is written, the write side closed (FIN), and what still arrives is
// read and discarded until the body ends or a bound is reached; only then is the socket closed.
//
// Written by hand because neither Node nor Fastify offers it. The answer goes straight to the socket
// (the reply is hijacked): answering through Node's ServerResponse would let Node destroy the socket
// as soon as the answer is flushed, which is the very thing to avoid.
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { logCompleted } from './request-log.ts';

export interface LingerLimits {
  /** At most this many more bytes are read and discarded. */
  maxBytes: number;
  /** The socket is closed after this long in any case. */
  maxMs: number;
  /** …and as soon as the client has sent nothing for this long. */
  idleMs: number;
}

const unread = new WeakSet<IncomingMessage>();

/**
 * A body parser stopped reading this request's body before its end, and refuses it (the users
 * import past its rows): its answer lingers too, as a refusal for size does.
 */
export function leaveBodyUnread(request: IncomingMessage): void {
  unread.add(request);
}

/** The body is still arriving and nothing will read it: answer with answerAndLinger. */
export const bodyLeftUnread = (request: IncomingMessage, errorCode: string | undefined): boolean =>
  !request.complete && (errorCode === 'FST_ERR_CTP_BODY_TOO_LARGE' || unread.has(request));

/** nginx's defaults are 30 s and 5 s; a 5 MB body over any working link is done in far less. */
export const lingerLimits = (bodyLimitBytes: number): LingerLimits => ({ maxBytes: bodyLimitBytes, maxMs: 10_000, idleMs: 2_000 });

/** Sends `body` as the answer with `status`, then lingers on the connection while the body still arrives. */
export function answerAndLinger(request: FastifyRequest, reply: FastifyReply, status: number, body: unknown, limits: LingerLimits): void {
  const socket = request.raw.socket;
  const payload = JSON.stringify(body);
  reply.hijack();
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  reply.code(status);
  const headers: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined && !['connection', 'content-length', 'content-type'].includes(name.toLowerCase())) headers[name] = value;
  }
  headers['content-type'] = 'application/json; charset=utf-8';
  headers['content-length'] = Buffer.byteLength(payload);
  headers.connection = 'close';
  const head = Object.entries(headers)
    .flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v) => `${name}: ${v}\r\n`))
    .join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head}\r\n${payload}`);
  logCompleted(request, reply);

  const destroy = () => socket.destroy();
  const overall = setTimeout(destroy, limits.maxMs);
  const idle = setTimeout(destroy, limits.idleMs);
  let received = 0;
  const discard = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.maxBytes) destroy();
    else idle.refresh();
  };
  socket.once('close', () => {
    clearTimeout(overall);
    clearTimeout(idle);
    request.raw.removeListener('data', discard);
  });
  request.raw.on('data', discard);
  // The body has ended: everything the client sent has been read, so closing sends no reset once
  // our own answer is flushed (the overall bound still applies to a client that does not read it).
  request.raw.once('end', () => (socket.writableFinished ? destroy() : socket.once('finish', destroy)));
  request.raw.resume();
}
