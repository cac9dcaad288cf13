// Image bytes for the tests, made here rather than committed: a real PNG (zlib-compressed rows,
// CRCs), a real GIF (one LZW-coded colour), and a JPEG made of the segments a decoder reads first
// (SOI, APP0/JFIF, a quantisation table, the start-of-frame with the size, EOI): the service reads
// only headers, and these carry the exact width and height the tests ask for.
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A valid RGB PNG of the given size, filled with one colour. */
export function png(width: number, height: number, rgb: [number, number, number] = [40, 90, 200]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit, truecolour, deflate, adaptive filter, no interlace
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A GIF89a of the given size in one colour (a two-entry palette, every pixel index 0). */
export function gif(width: number, height: number): Buffer {
  return gifWithFrame(width, height, width, height);
}

/** A GIF89a whose one frame has a size of its own, whatever its logical screen says. */
export function gifWithFrame(width: number, height: number, frameWidth: number, frameHeight: number): Buffer {
  const header = Buffer.alloc(13);
  header.write('GIF89a', 0, 'latin1');
  header.writeUInt16LE(width, 6);
  header.writeUInt16LE(height, 8);
  header.set([0x80, 0, 0], 10); // global colour table of 2 entries
  const palette = Buffer.from([200, 30, 30, 255, 255, 255]);
  const descriptor = Buffer.alloc(10);
  descriptor[0] = 0x2c;
  descriptor.writeUInt16LE(frameWidth, 5);
  descriptor.writeUInt16LE(frameHeight, 7);
  // LZW, minimum code size 2: clear code, then end-of-information; a decoder fills the rest with
  // the background. Enough for a header reader and for browsers.
  const image = Buffer.from([0x02, 0x02, 0x44, 0x01, 0x00]);
  return Buffer.concat([header, palette, descriptor.subarray(0, 10), image, Buffer.from([0x3b])]);
}

/** The leading segments of a baseline JPEG with the given size (see the file's comment). */
export function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  const dqt = Buffer.concat([Buffer.from([0xff, 0xdb, 0x00, 0x43, 0x00]), Buffer.alloc(64, 1)]);
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x0b, 0x08, 0, 0, 0, 0, 0x01, 0x01, 0x11, 0x00]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, Buffer.from([0xff, 0xff]), dqt, sof, Buffer.from([0xff, 0xd9])]);
}
