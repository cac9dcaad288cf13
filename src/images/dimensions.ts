// What an uploaded image is, read from its own bytes: the format from its magic bytes, and its width
// and height from its header. Hand-written on purpose: each format keeps its size in a few fixed
// header bytes (PNG's IHDR, GIF's logical screen, JPEG's start-of-frame segment), so reading them is
// a few lines each. sharp would decode pixels and bring a native dependency; image-size 2.1 (headers
// only) was tried in its place and failed three of dimensions.test.ts's four cases: a progressive
// JPEG after fill bytes had no size, and headers cut short were given one. Nothing here decodes
// pixels: a file whose header is well-formed is taken as what it says, and mail clients decode it.
import type { ImageContentType } from '../store/schema.ts';

export interface ImageInfo {
  contentType: ImageContentType;
  width: number;
  height: number;
  /**
   * GIF only: how far its frames reach (each frame's offset plus its size, the largest), when past
   * the logical screen. Decoders size their canvas to a frame that overflows the screen, so a
   * 1×1 screen can carry a 65535×65535 frame: the service checks this extent as well.
   */
  frames?: { width: number; height: number };
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The format the magic bytes say, or undefined when they are none of PNG, JPEG, GIF. */
export function sniffType(data: Uint8Array): ImageContentType | undefined {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (b.length >= 8 && b.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && (b.toString('latin1', 0, 6) === 'GIF87a' || b.toString('latin1', 0, 6) === 'GIF89a')) return 'image/gif';
  return undefined;
}

/** Width and height from the header, or undefined when the header is cut short or malformed. */
export function readImageInfo(data: Uint8Array): ImageInfo | undefined {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const contentType = sniffType(b);
  let size: Size | undefined;
  if (contentType === 'image/png') size = pngSize(b);
  else if (contentType === 'image/gif') size = gifSize(b);
  else if (contentType === 'image/jpeg') size = jpegSize(b);
  if (!contentType || !size || size.width < 1 || size.height < 1) return undefined;
  return { contentType, ...size };
}

type Size = { width: number; height: number; frames?: { width: number; height: number } };

// PNG: the signature, then the IHDR chunk first of all: length (4), "IHDR", width (4, BE), height (4, BE).
function pngSize(b: Buffer) {
  if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

// GIF: "GIF8?a", then the logical screen: width and height (2 bytes each, little-endian), a packed
// byte (bit 7: a global colour table follows, of 3 × 2^(n+1) bytes, n its low 3 bits), background
// and aspect. Then blocks up to the trailer (3B): extensions (21, a label, then sub-blocks) and
// frames (2C, the image descriptor: left, top, width, height, a packed byte like the screen's for
// a local colour table; then the LZW code size and sub-blocks). Sub-blocks are a length byte and
// that many bytes, ended by a zero length. Every frame is read: a file that ends before its
// trailer, or holds another block, is malformed.
function gifSize(b: Buffer): Size | undefined {
  if (b.length < 13) return undefined;
  const size: Size = { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  let reach = { width: size.width, height: size.height };
  let i = 13 + colourTable(b[10]!);
  const skipSubBlocks = () => {
    while (i < b.length && b[i] !== 0) i += 1 + b[i]!;
    i++; // the zero length that ends them
  };
  for (;;) {
    if (i >= b.length) return undefined;
    const block = b[i]!;
    if (block === 0x3b) break;
    if (block === 0x21) {
      i += 2;
      skipSubBlocks();
    } else if (block === 0x2c) {
      if (i + 10 > b.length) return undefined;
      const right = b.readUInt16LE(i + 1) + b.readUInt16LE(i + 5);
      const bottom = b.readUInt16LE(i + 3) + b.readUInt16LE(i + 7);
      reach = { width: Math.max(reach.width, right), height: Math.max(reach.height, bottom) };
      i += 10 + colourTable(b[i + 9]!) + 1; // the descriptor, its colour table, the LZW code size
      skipSubBlocks();
    } else {
      return undefined;
    }
  }
  if (reach.width > size.width || reach.height > size.height) size.frames = reach;
  return size;
}

const colourTable = (packed: number) => (packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0);

// JPEG: segments after SOI (FFD8), each a marker FFxx and (most) a 2-byte big-endian length that
// counts itself. The frame's size is in the first start-of-frame segment (SOF0–SOF15 but DHT C4,
// JPG C8 and DAC CC): precision (1), height (2), width (2). Reaching the scan (SOS, FFDA) first means
// there is no frame header.
function jpegSize(b: Buffer) {
  let i = 2;
  while (i + 1 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda || i + 4 > b.length) return undefined;
    const length = b.readUInt16BE(i + 2);
    if (length < 2) return undefined;
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      if (i + 9 > b.length || length < 7) return undefined;
      return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    i += 2 + length;
  }
  return undefined;
}
