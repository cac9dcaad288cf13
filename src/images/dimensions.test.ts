// The header readers of dimensions.ts on the shapes real files take: JPEGs whose size comes after
// Exif and other segments, progressive JPEGs (SOF2), fill bytes, and files cut short or lying.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readImageInfo, sniffType } from './dimensions.ts';

const seg = (marker: number, payload: number[]) => [0xff, marker, ((payload.length + 2) >> 8) & 0xff, (payload.length + 2) & 0xff, ...payload];
const sof = (marker: number, width: number, height: number) =>
  seg(marker, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
const jpeg = (...segments: number[][]) => Buffer.from([0xff, 0xd8, ...segments.flat(), 0xff, 0xd9]);
const le = (n: number) => [n & 0xff, n >> 8];
// A GIF: the logical screen (with a global colour table of 2 entries), then each frame's descriptor
// at its offset and size, a code size and one sub-block of LZW data, then the trailer.
const gifOf = (version: string, screen: [number, number], frames: [number, number, number, number][], between: number[] = []) =>
  Buffer.from([
    ...Buffer.from(version, 'latin1'),
    ...le(screen[0]),
    ...le(screen[1]),
    0x80,
    0,
    0,
    200,
    30,
    30,
    255,
    255,
    255,
    ...between,
    ...frames.flatMap(([left, top, w, h]) => [0x2c, ...le(left), ...le(top), ...le(w), ...le(h), 0, 2, 2, 0x44, 0x01, 0]),
    0x3b,
  ]);

test('JPEG: the size in the first frame header, after Exif, ICC and quantisation segments', () => {
  const exif = seg(0xe1, [...Buffer.from('Exif\0\0'), ...new Array(300).fill(7)]);
  const icc = seg(0xe2, new Array(600).fill(1));
  const dqt = seg(0xdb, [0, ...new Array(64).fill(2)]);
  assert.deepEqual(readImageInfo(jpeg(exif, icc, dqt, sof(0xc0, 1920, 1080))), { contentType: 'image/jpeg', width: 1920, height: 1080 });
  // Progressive (SOF2), after a Huffman table (C4, which is not a frame) and fill bytes.
  const dht = seg(0xc4, new Array(20).fill(0));
  assert.deepEqual(readImageInfo(jpeg(dht, [0xff, 0xff], sof(0xc2, 640, 2))), { contentType: 'image/jpeg', width: 640, height: 2 });
});

test('JPEG without a frame before the scan, or cut inside a segment: no size', () => {
  assert.equal(readImageInfo(jpeg(seg(0xda, [1, 2, 3]), sof(0xc0, 10, 10))), undefined);
  assert.equal(readImageInfo(jpeg(seg(0xe0, new Array(10).fill(0))).subarray(0, 8)), undefined);
  assert.equal(readImageInfo(Buffer.from([0xff, 0xd8, 0xff])), undefined);
  assert.equal(readImageInfo(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x01])), undefined, 'a length below 2');
});

test('PNG and GIF: the size from IHDR and the logical screen; a header cut short has none', () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000007d0000000010806000000', 'hex');
  assert.deepEqual(readImageInfo(png), { contentType: 'image/png', width: 2000, height: 1 });
  assert.equal(readImageInfo(png.subarray(0, 23)), undefined);
  const notIhdr = Buffer.from(png);
  notIhdr.write('IDAT', 12, 'latin1');
  assert.equal(readImageInfo(notIhdr), undefined);
  assert.deepEqual(readImageInfo(gifOf('GIF87a', [320, 240], [[0, 0, 320, 240]])), { contentType: 'image/gif', width: 320, height: 240 });
  assert.equal(readImageInfo(Buffer.from('GIF89a\x40\x01', 'latin1')), undefined);
  assert.equal(readImageInfo(gifOf('GIF89a', [320, 240], [[0, 0, 320, 240]]).subarray(0, 30)), undefined, 'cut before its trailer');
});

test('the magic bytes decide the type: not the file name, not what the client says', () => {
  assert.equal(sniffType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), undefined);
  assert.equal(sniffType(Buffer.from('GIF90a')), undefined);
  assert.equal(sniffType(Buffer.from('RIFF\0\0\0\0WEBPVP8 ')), undefined);
  assert.equal(sniffType(Buffer.from([0xff, 0xd8, 0xff, 0xdb])), 'image/jpeg');
  assert.equal(sniffType(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'image/png');
  // A view into a larger buffer is read from its own offset.
  const padded = Buffer.concat([Buffer.from('xxxx'), gifOf('GIF89a', [2, 3], [[0, 0, 2, 3]])]);
  assert.deepEqual(readImageInfo(padded.subarray(4)), { contentType: 'image/gif', width: 2, height: 3 });
});

test('GIF: every frame is read; one that reaches past the logical screen gives its extent', () => {
  // An extension (graphic control, 4 bytes) before the frames, and two frames inside the screen.
  const control = [0x21, 0xf9, 4, 0, 0, 0, 0, 0];
  assert.deepEqual(
    readImageInfo(
      gifOf(
        'GIF89a',
        [40, 30],
        [
          [0, 0, 40, 30],
          [10, 5, 30, 25],
        ],
        control,
      ),
    ),
    { contentType: 'image/gif', width: 40, height: 30 },
  );
  // A 1×1 screen carrying a 65535×65535 frame, as the second frame.
  assert.deepEqual(
    readImageInfo(
      gifOf(
        'GIF89a',
        [1, 1],
        [
          [0, 0, 1, 1],
          [0, 0, 65535, 65535],
        ],
      ),
    ),
    {
      contentType: 'image/gif',
      width: 1,
      height: 1,
      frames: { width: 65535, height: 65535 },
    },
  );
  // A frame's offset counts: 1,990 + 20 reaches 2,010.
  assert.deepEqual(readImageInfo(gifOf('GIF89a', [100, 100], [[1990, 0, 20, 10]]))?.frames, { width: 2010, height: 100 });
  // A block that is neither an extension, a frame nor the trailer: malformed.
  assert.equal(readImageInfo(gifOf('GIF89a', [4, 4], [[0, 0, 4, 4]], [0x99])), undefined);
});
