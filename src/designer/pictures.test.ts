// The pictures the service draws: real PNGs of the advertised size, made once and then served
// from memory, and a thumbnail per starter that shows what the design holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSocialNetwork, socialIconPng, starterThumbnailPng, starterThumbnailSvg } from './pictures.ts';
import { SOCIAL_NETWORKS } from './design.ts';
import { STARTER_DESIGNS } from './starters.ts';
import { compileDesign } from './compile.ts';

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG signature');
  assert.equal(png.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

test('each social icon is a 40×40 PNG (twice the 20 px it is shown at), made once', async () => {
  for (const network of SOCIAL_NETWORKS) {
    const png = await socialIconPng(network);
    assert.deepEqual(pngSize(png), { width: 40, height: 40 }, network);
    assert.equal(await socialIconPng(network), png, `${network}: the same buffer the second time`);
  }
  assert.equal(isSocialNetwork('linkedin'), true);
  assert.equal(isSocialNetwork('myspace'), false);
});

test('each starter has a thumbnail picture of its design, with the sample person in it', async () => {
  assert.ok(STARTER_DESIGNS.length >= 8);
  assert.equal(new Set(STARTER_DESIGNS.map((s) => s.starterId)).size, STARTER_DESIGNS.length);
  const seen = new Set<string>();
  for (const s of STARTER_DESIGNS) {
    const svg = starterThumbnailSvg(s.design);
    assert.match(svg, /Ada Lovelace/, s.starterId);
    assert.ok(svg.includes(s.design.style.accentColor), `${s.starterId}: its accent colour`);
    const png = await starterThumbnailPng(s.starterId, s.design);
    const { width, height } = pngSize(png);
    assert.equal(width, 520);
    assert.ok(height >= 120 && height < 600, `${s.starterId}: ${height}`);
    seen.add(png.toString('base64'));
  }
  assert.equal(seen.size, STARTER_DESIGNS.length, 'no two starters look the same');
});

test('every starter compiles without a warning', () => {
  for (const s of STARTER_DESIGNS) {
    const compiled = compileDesign(s.design, { baseUrl: 'https://sig.example', images: new Map() });
    assert.deepEqual(compiled.warnings, [], s.starterId);
  }
});
