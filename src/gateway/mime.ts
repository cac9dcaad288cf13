// The message's MIME, read and rewritten in one pass as a stream of nodes (@zone-eu/mailsplit, its
// MIT licence): `stamper` reads what decides stamping from the nodes as they go by and rewrites
// only the text/html and text/plain bodies (decoded, signature inserted, encoded again in their
// charset and transfer encoding), passing every other byte through as it came.
import { Transform } from 'node:stream';
import { finished } from 'node:stream/promises';
import mailsplit from '@zone-eu/mailsplit';
import type { MimeNode, SplitterChunk } from '@zone-eu/mailsplit';
import iconv from 'iconv-lite';
import libqp from 'libqp';
import { htmlInsertionPoint, insertHtml, insertText } from './insert.ts';
import type { MessageFacts } from './facts.ts';
import { hasMarker } from '../render/module.ts';

/** The message already carries the user's signature (the add-in inserted it): it passes as it came. */
export class AlreadySigned extends Error {}

/** Embedded messages (a forward as attachment) are leaves: their bytes pass as they are. */
export const SPLIT_OPTIONS = { ignoreEmbedded: true, maxHeadSize: 256 * 1024, maxChildNodes: 500 };

export const { Splitter, Joiner } = mailsplit;

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

export function addressOf(header: string): string | undefined {
  const angle = /<\s*([^<>\s]+@[^<>\s]+)\s*>/.exec(header);
  const bare = angle ?? /([^\s<>"',;:]+@[^\s<>"',;]+)/.exec(header);
  return bare?.[1]?.toLowerCase();
}

const isTextBody = (node: MimeNode) => (node.contentType === 'text/html' || node.contentType === 'text/plain') && node.disposition !== 'attachment';

/** What a node tells: its type (signed, encrypted, calendar) and, for the root, the header fields that decide. */
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
 * What the stamper holds back before it renders the signature: a message of this size or less is
 * read to its end first, so that a part found late (a meeting request's text/calendar after its
 * text and HTML) passes it unstamped without a render (which counts an impression). A larger
 * message is stamped from there on, in bounded memory.
 */
const HOLD_BYTES = 1024 * 1024;

export interface StamperHooks {
  /** The root node's facts are read: the user to stamp for, or undefined to pass (a refusal too). */
  decide(facts: MessageFacts): Promise<string | undefined>;
  /** The signature to insert for that user (rendered once, when the first text body needs it). */
  signature(userId: string): Promise<{ html: string; text: string }>;
}

/** How the stamper ended: `stamped` means its output is the message to relay. */
export type StampResult = { state: 'stamped' } | { state: 'passed' } | { state: 'already-signed' } | { state: 'failed'; error: Error };

type TextPart = { node: MimeNode; chunks: Buffer[]; size: number };
type Held = SplitterChunk | TextPart;

/**
 * Object-mode transform between a Splitter and a Joiner, one pass over the message: it reads the
 * facts (`facts`, filled in as nodes go by), asks `decide` at the root, and when stamping, buffers
 * each text/html and text/plain body (encoded) and writes it back with the signature inserted.
 * When the message passes (not stamped, already signed, a part that must not change, a failure)
 * it writes nothing more and only reads on; `result()` says which.
 */
export function stamper(facts: MessageFacts, hooks: StamperHooks): Transform & { result(): StampResult } {
  let mode: 'undecided' | 'hold' | 'stream' | 'pass' = 'undecided';
  let ending: StampResult = { state: 'passed' };
  let userId = '';
  let signature: { html: string; text: string } | undefined;
  let current: (TextPart & { passing: boolean }) | undefined;
  let held: Held[] = [];
  let heldBytes = 0;

  const pass = (result: StampResult) => {
    mode = 'pass';
    ending = result;
    held = [];
    current = undefined;
  };

  /** Writes an item out (rewriting a text part), or holds it while the message may still pass. */
  async function emit(stream: Transform, item: Held): Promise<void> {
    if (mode === 'hold') {
      held.push(item);
      heldBytes += 'chunks' in item ? item.size : 'value' in item && Buffer.isBuffer(item.value) ? item.value.length : 256;
      if (heldBytes > HOLD_BYTES) await release(stream);
      return;
    }
    if (!('chunks' in item)) {
      stream.push(item);
      return;
    }
    signature ??= await hooks.signature(userId);
    const rewritten = await rewriteBody(item.node, Buffer.concat(item.chunks), signature, userId);
    stream.push(item.node);
    if (rewritten.length > 0) stream.push({ type: 'body', node: item.node, value: rewritten });
  }

  /** Writes out what was held and streams from then on. */
  async function release(stream: Transform): Promise<void> {
    mode = 'stream';
    const items = held;
    held = [];
    for (const item of items) await emit(stream, item);
  }

  /** Ends the text part being read (if any) and hands it on. */
  async function closeText(stream: Transform): Promise<void> {
    const part = current;
    current = undefined;
    if (part && !part.passing) await emit(stream, part);
  }

  async function onChunk(stream: Transform, chunk: SplitterChunk): Promise<void> {
    if (chunk.type === 'node') {
      readNode(chunk, facts);
      if (mode === 'undecided') {
        const user = chunk.root ? await hooks.decide(facts) : undefined;
        if (user === undefined) return pass({ state: 'passed' });
        userId = user;
        mode = 'hold';
      }
      if (facts.untouchable) return pass({ state: 'passed' });
    }
    if (mode === 'pass') return;
    if (current && chunk.type === 'body') {
      if (current.passing) return emit(stream, chunk);
      current.chunks.push(chunk.value);
      current.size += chunk.value.length;
      if (current.size > MAX_TEXT_BYTES) {
        // Too big to hold: the node and its body so far go on as they came.
        current.passing = true;
        await emit(stream, current.node);
        for (const c of current.chunks) await emit(stream, { type: 'body', node: current.node, value: c });
        current.chunks = [];
      }
      return;
    }
    await closeText(stream);
    if (chunk.type === 'node' && isTextBody(chunk)) current = { node: chunk, chunks: [], size: 0, passing: false };
    else await emit(stream, chunk);
  }

  /** Stamping failed or found the signature: the message passes, and the reader reads on. */
  const failed = (err: unknown) => {
    if (err instanceof AlreadySigned) pass({ state: 'already-signed' });
    else pass({ state: 'failed', error: err as Error });
  };

  const transform = new Transform({
    objectMode: true,
    transform(chunk: SplitterChunk, _enc, done) {
      // Without a promise where nothing waits (a chunk a line): a passing message's, a text body's.
      if (mode === 'pass') {
        if (chunk.type === 'node') readNode(chunk, facts);
        return done();
      }
      if (current && !current.passing && chunk.type === 'body' && current.size + chunk.value.length <= MAX_TEXT_BYTES) {
        current.chunks.push(chunk.value);
        current.size += chunk.value.length;
        return done();
      }
      onChunk(this, chunk).then(
        () => done(),
        (err: unknown) => {
          failed(err);
          done();
        },
      );
    },
    flush(done) {
      const end = async () => {
        if (mode === 'undecided') return;
        await closeText(this);
        if (mode === 'hold') await release(this);
        if (mode !== 'pass') ending = { state: 'stamped' };
      };
      end().then(
        () => done(),
        (err: unknown) => {
          failed(err);
          done();
        },
      );
    },
  });
  return Object.assign(transform, { result: () => ending });
}

/** Decodes one text body, inserts the signature, and encodes it again (charset and transfer encoding kept when they can carry it). */
async function rewriteBody(node: MimeNode, encoded: Buffer, signature: { html: string; text: string }, userId: string): Promise<Buffer> {
  const spliced = spliceHtml(node, encoded, signature.html, userId);
  if (spliced) return spliced;
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

/** Bodies up to this size may take the quoted-printable splice (decoded in one turn of the event loop). */
const SPLICE_MAX_BYTES = 256 * 1024;

/**
 * A quoted-printable HTML body with the signature spliced in: only the encoded line where it goes
 * is encoded again, every other line stays byte for byte (re-encoding the whole body cost more
 * than everything else stamping does: BENCHMARKS.md). Undefined, for rewriteBody's general path,
 * when the splice cannot be exact: another encoding, a large body, a charset that cannot write the
 * signature, bytes the charset does not read back the same.
 */
function spliceHtml(node: MimeNode, encoded: Buffer, signature: string, userId: string): Buffer | undefined {
  const charset = (node.charset || 'us-ascii').toLowerCase();
  if (node.contentType !== 'text/html' || node.encoding !== 'quoted-printable' || encoded.length > SPLICE_MAX_BYTES || !iconv.encodingExists(charset))
    return undefined;
  const decoded = libqp.decode(encoded);
  const text = iconv.decode(decoded, charset);
  if (hasMarker(text, userId)) throw new AlreadySigned();
  const insert = iconv.encode(signature, charset);
  if (iconv.decode(insert, charset) !== signature) return undefined;
  const at = htmlInsertionPoint(text);
  const before = iconv.encode(text.slice(0, at), charset);
  if (!before.equals(decoded.subarray(0, before.length))) return undefined;
  return spliceQp(encoded, decoded, before.length, insert);
}

/**
 * Inserts `insert` at `offset` of the decoded bytes: finds the encoded line that decodes to the
 * bytes around it (walking back from the end, each line decoded alone: libqp's soft breaks,
 * trailing white space and escapes never span lines), and encodes that line again with the
 * insertion (its soft line break kept).
 */
export function spliceQp(encoded: Buffer, decoded: Buffer, offset: number, insert: Buffer): Buffer | undefined {
  if (decoded[offset - 1] === 0x0d && decoded[offset] === 0x0a) return undefined; // within a line break
  let end = encoded.length;
  let tail = decoded.length;
  while (end > 0) {
    const start = encoded.lastIndexOf(0x0a, end - 2) + 1;
    const line = libqp.decode(encoded.subarray(start, end));
    tail -= line.length;
    if (tail <= offset) {
      if (tail < 0 || !line.equals(decoded.subarray(tail, tail + line.length))) return undefined;
      const soft = /=\r?\n$/.test(encoded.subarray(Math.max(start, end - 3), end).toString('latin1'));
      const at = offset - tail;
      const middle = libqp.wrap(libqp.encode(Buffer.concat([line.subarray(0, at), insert, line.subarray(at)])), 76) + (soft ? '=\r\n' : '');
      return Buffer.concat([encoded.subarray(0, start), Buffer.from(middle, 'latin1'), encoded.subarray(end)]);
    }
    end = start;
  }
  return undefined;
}

async function through(stream: Transform, input: Buffer): Promise<Buffer> {
  const out: Buffer[] = [];
  stream.on('data', (c: Buffer) => out.push(c));
  const done = finished(stream);
  // In slices, yielding between them: a body of megabytes is never encoded in one turn of the event loop.
  for (let at = 0; at < input.length; at += SLICE_BYTES) {
    if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    stream.write(input.subarray(at, at + SLICE_BYTES));
  }
  stream.end();
  await done;
  return Buffer.concat(out);
}
