// The message's MIME, read and rewritten as a stream of nodes (@zone-eu/mailsplit, its MIT
// licence): `scan` reads what decides stamping; `stamper` rewrites only the text/html and
// text/plain bodies (decoded, signature inserted, encoded again in their charset and transfer
// encoding) and passes every other byte through as it came.
import { Transform, Writable, type Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import mailsplit from '@zone-eu/mailsplit';
import type { MimeNode, SplitterChunk } from '@zone-eu/mailsplit';
import iconv from 'iconv-lite';
import { insertHtml, insertText } from './insert.ts';
import { hasMarker } from '../render/module.ts';

/** The message already carries the user's signature (the add-in inserted it): it passes as it came. */
export class AlreadySigned extends Error {}

const { Splitter } = mailsplit;

/** Embedded messages (a forward as attachment) are leaves: their bytes pass as they are. */
export const SPLIT_OPTIONS = { ignoreEmbedded: true, maxHeadSize: 256 * 1024, maxChildNodes: 500 };

const UNTOUCHABLE_TYPES = new Set([
  'multipart/signed',
  'multipart/encrypted',
  'application/pkcs7-mime',
  'application/x-pkcs7-mime',
  'application/pkcs7-signature',
  'application/x-pkcs7-signature',
  'application/pgp-encrypted',
  'application/pgp-signature',
]);

export interface MessageFacts {
  /** The From header's address, lower case. */
  from: string | undefined;
  alreadyStamped: boolean;
  tenantId: string | undefined;
  isReply: boolean;
  /** Why the body must not change: a signature, encryption, or a calendar part. */
  untouchable: 'signed-or-encrypted' | 'calendar' | undefined;
}

export function addressOf(header: string): string | undefined {
  const angle = /<\s*([^<>\s]+@[^<>\s]+)\s*>/.exec(header);
  const bare = angle ?? /([^\s<>"',;:]+@[^\s<>"',;]+)/.exec(header);
  return bare?.[1]?.toLowerCase();
}

const isTextBody = (node: MimeNode, type: string) => node.contentType === type && node.disposition !== 'attachment';

/** Reads the message once, its structure and root header fields (no body is decoded). */
export async function scan(source: Readable): Promise<MessageFacts> {
  const facts: MessageFacts = { from: undefined, alreadyStamped: false, tenantId: undefined, isReply: false, untouchable: undefined };
  await pipeline(
    source,
    new Splitter(SPLIT_OPTIONS),
    new Writable({
      objectMode: true,
      write(chunk: SplitterChunk, _enc, done) {
        if (chunk.type === 'node') readNode(chunk, facts);
        done();
      },
    }),
  );
  return facts;
}

function readNode(node: MimeNode, facts: MessageFacts): void {
  const type = node.contentType || '';
  if (UNTOUCHABLE_TYPES.has(type)) facts.untouchable = 'signed-or-encrypted';
  else if (type === 'text/calendar' || type === 'application/ics') facts.untouchable ??= 'calendar';
  if (!node.root || !node.headers) return;
  const headers = node.headers;
  facts.from = addressOf(headers.getFirst('from') ?? '');
  facts.alreadyStamped = headers.hasHeader('x-sigsvc-stamped');
  facts.tenantId = headers.getFirst('x-ms-exchange-crosstenant-id')?.trim() || undefined;
  facts.isReply = headers.hasHeader('in-reply-to') || headers.hasHeader('references');
}

const SLICE_BYTES = 64 * 1024;

/** Text bodies larger than this pass unstamped: a text part is decoded whole in memory. */
const MAX_TEXT_BYTES = 4 * 1024 * 1024;

/**
 * Object-mode transform between a Splitter and a Joiner: buffers each text/html and text/plain
 * body (encoded), and on the next chunk writes it back with the signature inserted.
 */
export function stamper(signature: { html: string; text: string }, userId: string): Transform {
  let current: { node: MimeNode; chunks: Buffer[]; size: number; passing: boolean } | undefined;
  const transform = new Transform({
    objectMode: true,
    transform(chunk: SplitterChunk, _enc, done) {
      if (current && chunk.type === 'body') {
        if (current.passing) return done(null, chunk);
        current.chunks.push(chunk.value);
        current.size += chunk.value.length;
        if (current.size > MAX_TEXT_BYTES) {
          // Too big to hold: the node and its body so far go on as they came.
          current.passing = true;
          this.push(current.node);
          for (const c of current.chunks) this.push({ type: 'body', node: current.node, value: c });
          current.chunks = [];
        }
        return done();
      }
      flush(this)
        .then(() => {
          if (chunk.type === 'node' && (isTextBody(chunk, 'text/html') || isTextBody(chunk, 'text/plain'))) {
            current = { node: chunk, chunks: [], size: 0, passing: false };
            return done();
          }
          done(null, chunk);
        })
        .catch(done);
    },
    flush(done) {
      flush(this).then(() => done(), done);
    },
  });

  async function flush(stream: Transform): Promise<void> {
    const node = current;
    current = undefined;
    if (!node || node.passing) return;
    const encoded = Buffer.concat(node.chunks);
    const rewritten = await rewriteBody(node.node, encoded, signature, userId);
    stream.push(node.node);
    if (rewritten.length > 0) stream.push({ type: 'body', node: node.node, value: rewritten });
  }
  return transform;
}

/** Decodes one text body, inserts the signature, and encodes it again (charset and transfer encoding kept when they can carry it). */
async function rewriteBody(node: MimeNode, encoded: Buffer, signature: { html: string; text: string }, userId: string): Promise<Buffer> {
  const decoded = await through(node.getDecoder() as Transform, encoded);
  const charset = (node.charset || 'us-ascii').toLowerCase();
  if (!iconv.encodingExists(charset)) return encoded; // An unknown charset: left as it came.
  const text = iconv.decode(decoded, charset);
  const html = node.contentType === 'text/html';
  // Found while rewriting (the HTML is decoded here anyway): the whole stamped copy is dropped.
  if (html && hasMarker(text, userId)) throw new AlreadySigned();
  const result = html ? insertHtml(text, signature.html) : insertText(text, signature.text);
  let bytes = iconv.encode(result, charset);
  if (iconv.decode(bytes, charset) !== result) {
    // The signature holds characters the part's charset cannot write (a us-ascii part and an
    // accented name): the part becomes UTF-8.
    node.setCharset('utf-8');
    bytes = Buffer.from(result, 'utf8');
  }
  const encoding = node.encoding || '7bit';
  let target: string | false = false;
  if (encoding !== 'base64' && encoding !== 'quoted-printable') {
    const eightBit = bytes.some((b) => b > 127);
    const longLine = bytes
      .toString('latin1')
      .split('\n')
      .some((l) => l.length > 998);
    if ((encoding === '7bit' && eightBit) || longLine) target = 'quoted-printable';
  }
  return through(node.getEncoder(target) as Transform, bytes);
}

async function through(stream: Transform, input: Buffer): Promise<Buffer> {
  const out: Buffer[] = [];
  stream.on('data', (c: Buffer) => out.push(c));
  const done = finished(stream);
  // In slices, yielding between them: a body of megabytes is never encoded in one turn of the event loop.
  for (let at = 0; at < input.length; at += SLICE_BYTES) {
    stream.write(input.subarray(at, at + SLICE_BYTES));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  stream.end();
  await done;
  return Buffer.concat(out);
}
