// The message's MIME, read and rewritten in one pass as a stream of nodes (@zone-eu/mailsplit, its
// MIT licence): `stamper` reads what decides stamping from the nodes as they go by and rewrites
// only the message's text/html and text/plain body (body.ts: decoded, signature inserted, encoded
// again in their charset and transfer encoding), passing every other byte through as it came.
import { Transform } from 'node:stream';
import mailsplit from '@zone-eu/mailsplit';
import type { MimeNode, SplitterChunk } from '@zone-eu/mailsplit';
import addressparser from 'nodemailer/lib/addressparser';
import { AlreadySigned, LeaveAsIs, readBody, typeOf, writeBody, type ReadBody } from './body.ts';
import type { MessageFacts } from './facts.ts';

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

/**
 * The senders the From fields name, read from their raw values by an RFC 5322 address parser
 * (nodemailer's: quoted display names, comments, groups), so that an address in a display name
 * (`"<ada@b.example>" <ceo@a.example>`) is not the sender's. Encoded words are not decoded before
 * parsing: decoded, `=?utf-8?q?=3Cada=40b.example=3E?=` would turn into an address. `from` is the
 * sender only when there is one From field with one mailbox in it; two fields, or a list, or none,
 * name no one user. `addresses` are every mailbox's (for the check that none is another org's).
 */
export function sendersOf(fields: string[]): { from: string | undefined; addresses: string[] } {
  const mailboxes = fields.flatMap((field) => addressparser(field, { flatten: true }));
  const addresses = mailboxes.map((m) => normalAddress(m.address)).filter((address) => address !== '');
  const one = fields.length === 1 && mailboxes.length === 1 && addresses.length === 1 ? addresses[0]! : undefined;
  return { from: one && /^[^@\s]+@[^@\s]+$/.test(one) ? one : undefined, addresses };
}

/** Lower case, and without the trailing dot a domain may be written with (`a.example.` is `a.example`). */
const normalAddress = (address: string) => address.trim().toLowerCase().replace(/\.+$/, '');

/** A header field's value as it came (`Name: value`, folded lines joined). */
const fieldValue = (line: string) => line.slice(line.indexOf(':') + 1).replace(/\r?\n(?=[ \t])/g, '');

/** What a node tells: its type (signed, encrypted, calendar) and, for the root, the header fields that decide. */
function readNode(node: MimeNode, facts: MessageFacts): void {
  const type = node.contentType || '';
  if (UNTOUCHABLE_TYPES.has(type)) facts.untouchable = 'signed-or-encrypted';
  else if (type === 'text/calendar' || type === 'application/ics') facts.untouchable ??= 'calendar';
  if (!node.root || !node.headers) return;
  const headers = node.headers;
  const senders = sendersOf(headers.get('from').map(fieldValue));
  facts.from = senders.from;
  facts.fromAddresses = senders.addresses;
  facts.alreadyStamped = headers.hasHeader('x-sigsvc-stamped');
  facts.tenantId = headers.getFirst('x-ms-exchange-crosstenant-id')?.trim() || undefined;
  facts.isReply = headers.hasHeader('in-reply-to') || headers.hasHeader('references');
}

/**
 * Picks the message's body parts as nodes go by, as inspnet/signer's findBody does: on the path
 * from the root through every part of a multipart/alternative and the first part of any other
 * multipart (in mixed and related, the rest are attachments or what the body shows), the first
 * text/plain and the first text/html that are no attachment (a disposition of attachment, or a
 * file name). Later text parts (a text attachment, a second text part) pass as they came.
 */
function bodyPicker(): (node: MimeNode) => boolean {
  const onPath = new WeakSet<object>();
  const children = new WeakMap<object, number>();
  const taken = new Set<string>();
  return (node) => {
    const parent = node.parentNode;
    if (parent) {
      const index = children.get(parent) ?? 0;
      children.set(parent, index + 1);
      if (!onPath.has(parent) || (parent.contentType !== 'multipart/alternative' && index > 0)) return false;
    }
    onPath.add(node);
    const type = typeOf(node);
    if ((type !== 'text/plain' && type !== 'text/html') || node.disposition === 'attachment' || node.filename || taken.has(type)) return false;
    taken.add(type);
    return true;
  };
}

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
export type StampResult = { state: 'stamped' } | { state: 'passed'; reason?: string } | { state: 'already-signed' } | { state: 'failed'; error: Error };

/** A body part as it is read (its encoded chunks), then once read whole (`body`: decoded and checked). */
type TextPart = { node: MimeNode; chunks: Buffer[]; size: number; body?: ReadBody };
type Held = SplitterChunk | TextPart;

/**
 * Object-mode transform between a Splitter and a Joiner, one pass over the message: it reads the
 * facts (`facts`, filled in as nodes go by), asks `decide` at the root, and when stamping, buffers
 * the message's text/html and text/plain body (encoded; `bodyPicker`), reads it whole (readBody:
 * what must not change is found there, before the signature is rendered) and writes it back with
 * the signature inserted. When the message passes (not stamped, already signed, a part that must
 * not change, a failure) it writes nothing more and only reads on; `result()` says which.
 */
export function stamper(facts: MessageFacts, hooks: StamperHooks): Transform & { result(): StampResult } {
  let mode: 'undecided' | 'hold' | 'stream' | 'pass' = 'undecided';
  let ending: StampResult = { state: 'passed' };
  let userId = '';
  let signature: { html: string; text: string } | undefined;
  let current: (TextPart & { passing: boolean }) | undefined;
  let held: Held[] = [];
  let heldBytes = 0;
  let stampedParts = 0;
  const isBody = bodyPicker();

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
    const rewritten = await writeBody(item.node, item.body!, signature);
    stampedParts++;
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

  /** Ends the text part being read (if any), reads it whole and hands it on. */
  async function closeText(stream: Transform): Promise<void> {
    const part = current;
    current = undefined;
    if (!part || part.passing) return;
    part.body = await readBody(part.node, Buffer.concat(part.chunks), userId);
    part.chunks = [];
    await emit(stream, part);
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
    if (chunk.type === 'node' && isBody(chunk)) current = { node: chunk, chunks: [], size: 0, passing: false };
    else await emit(stream, chunk);
  }

  /** Stamping failed, or found the signature or a body to leave as it is: the message passes, and the reader reads on. */
  const failed = (err: unknown) => {
    if (err instanceof AlreadySigned) pass({ state: 'already-signed' });
    else if (err instanceof LeaveAsIs) {
      facts.untouchable ??= err.untouchable;
      pass({ state: 'passed', reason: err.message });
    } else pass({ state: 'failed', error: err as Error });
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
        // Stamped only when a signature went in (a message without a text body, or whose only body was too large, passes).
        if (mode !== 'pass') ending = stampedParts > 0 ? { state: 'stamped' } : { state: 'passed', reason: 'no text body to stamp' };
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
