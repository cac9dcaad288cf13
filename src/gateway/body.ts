// A text body read whole and written again (mime.ts picks the bodies; docs/gateway.md, "What it
// does to a message"): decoded (transfer encoding, charset), checked for what forbids changing it,
// the signature inserted, encoded again in its charset and transfer encoding.
import type { Transform } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { MimeNode } from '@zone-eu/mailsplit';
import iconv from 'iconv-lite';
import libqp from 'libqp';
import { htmlInsertionPoint, insertHtml, insertText } from './insert.ts';
import type { MessageFacts } from './facts.ts';
import { hasMarker } from '../render/module.ts';

/** The message already carries the user's signature (the add-in inserted it): it passes as it came. */
export class AlreadySigned extends Error {}

/** A body the gateway must not change (its message says why): the message passes as it came. */
export class LeaveAsIs extends Error {
  readonly untouchable: MessageFacts['untouchable'];
  constructor(reason: string, untouchable?: MessageFacts['untouchable']) {
    super(reason);
    this.untouchable = untouchable;
  }
}

/** A part's type: without a Content-Type field, text/plain (RFC 2045), message/rfc822 in a digest (RFC 2046). */
export const typeOf = (node: MimeNode) =>
  node.contentType || (node.parentNode && node.parentNode.contentType === 'multipart/digest' ? 'message/rfc822' : 'text/plain');

const SLICE_BYTES = 64 * 1024;

/** A text body read whole: its bytes, decoded, its text, and for HTML where the signature goes. */
export interface ReadBody {
  encoded: Buffer;
  decoded: Buffer;
  text: string;
  charset: string;
  /** HTML: the insertion point (before the quote, else before `</body>`). */
  at?: number;
}

const TRANSFER_ENCODINGS = new Set(['7bit', '8bit', 'binary', 'base64', 'quoted-printable']);

/** Inline PGP's armour (RFC 4880, "Cleartext Signature Framework", "Forming ASCII Armor") at the start of a line, or after a tag in HTML. */
const PGP_ARMOUR = /(?:^|[\n>])-----BEGIN PGP (?:SIGNED )?MESSAGE-----/;

/**
 * Decodes a body and finds what forbids changing it: a transfer encoding or charset the gateway
 * cannot read, bytes the charset does not read back the same (8-bit bytes in a us-ascii part or one
 * without a charset, invalid UTF-8: written again they would change), inline PGP, and (HTML) the
 * user's signature marker above the quote (a marker in the quoted part is an earlier message's).
 */
export async function readBody(node: MimeNode, encoded: Buffer, userId: string): Promise<ReadBody> {
  const type = typeOf(node);
  const encoding = node.encoding || '7bit';
  if (!TRANSFER_ENCODINGS.has(encoding)) throw new LeaveAsIs(`a ${type} body in the transfer encoding ${encoding}`);
  const charset = (node.charset || 'us-ascii').toLowerCase();
  if (!iconv.encodingExists(charset)) throw new LeaveAsIs(`a ${type} body in ${charset}, a charset the gateway cannot read`);
  const decoded = await through(node.getDecoder() as Transform, encoded);
  const text = iconv.decode(decoded, charset, { stripBOM: false });
  if (!iconv.encode(text, charset).equals(decoded)) throw new LeaveAsIs(`a ${type} body whose bytes are not ${charset}`);
  if (PGP_ARMOUR.test(text)) throw new LeaveAsIs('inline PGP', 'signed-or-encrypted');
  if (type !== 'text/html') return { encoded, decoded, text, charset };
  const at = htmlInsertionPoint(text);
  if (hasMarker(text.slice(0, at), userId)) throw new AlreadySigned();
  return { encoded, decoded, text, charset, at };
}

/** Inserts the signature into a body read whole, and encodes it again (charset and transfer encoding kept when they can carry it). */
export async function writeBody(node: MimeNode, body: ReadBody, signature: { html: string; text: string }): Promise<Buffer> {
  const spliced = spliceHtml(node, body, signature.html);
  if (spliced) return spliced;
  const { charset, text } = body;
  const result = body.at !== undefined ? insertHtml(text, signature.html, body.at) : insertText(text, signature.text);
  let bytes = iconv.encode(result, charset);
  if (iconv.decode(bytes, charset, { stripBOM: false }) !== result) {
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

/** Bodies up to this size may take the quoted-printable splice (its lines decoded again in one turn of the event loop). */
const SPLICE_MAX_BYTES = 256 * 1024;

/**
 * A quoted-printable HTML body with the signature spliced in: only the encoded line where it goes
 * is encoded again, every other line stays byte for byte (re-encoding the whole body cost more
 * than everything else stamping does: BENCHMARKS.md). Undefined, for writeBody's general path,
 * when the splice cannot be exact: another encoding, a large body, a charset that cannot write the
 * signature, bytes the charset does not read back the same.
 */
function spliceHtml(node: MimeNode, body: ReadBody, signature: string): Buffer | undefined {
  const { at, charset, decoded, encoded, text } = body;
  if (at === undefined || node.encoding !== 'quoted-printable' || encoded.length > SPLICE_MAX_BYTES) return undefined;
  const insert = iconv.encode(signature, charset);
  if (iconv.decode(insert, charset) !== signature) return undefined;
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
