// The message's MIME, read and rewritten in one pass as a stream of nodes (@zone-eu/mailsplit, its
// MIT licence): `stamper` reads what decides stamping from the nodes as they go by and rewrites
// only the text/html and text/plain bodies (decoded, signature inserted, encoded again in their
// charset and transfer encoding), passing every other byte through as it came.
import { Transform } from 'node:stream';
import { finished } from 'node:stream/promises';
import mailsplit from '@zone-eu/mailsplit';
import type { MimeNode, SplitterChunk } from '@zone-eu/mailsplit';
import iconv from 'iconv-lite';
import { insertHtml, insertText } from './insert.ts';
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

export interface MessageFacts {
  /** The From header's address, lower case. */
  from: string | undefined;
  alreadyStamped: boolean;
  tenantId: string | undefined;
  isReply: boolean;
  /** Why the body must not change: a signature, encryption, or a calendar part. */
  untouchable: 'signed-or-encrypted' | 'calendar' | undefined;
}

export const noFacts = (): MessageFacts => ({ from: undefined, alreadyStamped: false, tenantId: undefined, isReply: false, untouchable: undefined });

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
    if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    stream.write(input.subarray(at, at + SLICE_BYTES));
  }
  stream.end();
  await done;
  return Buffer.concat(out);
}
