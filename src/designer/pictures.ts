// Pictures the service draws itself, without a browser (a self-hosted machine has none): the
// social icons the compiled signatures link to, and a thumbnail of each starter for the gallery.
// Each is an SVG written here and rasterised by resvg (`@resvg/resvg-js`, a Rust renderer whose
// binary ships inside its npm package) with the DejaVu fonts of `dejavu-fonts-ttf` (a free
// licence), so a picture looks the same on every machine. resvg renders on libuv's thread pool
// (`renderAsync`), not on the event loop; each picture is made once, on first request, and kept.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { renderAsync } from '@resvg/resvg-js';
import type { Block, Design, SocialNetwork } from './design.ts';
import { SOCIAL_NETWORKS } from './design.ts';
import { SOCIAL_ICON_PX } from './compile.ts';

const fontDir = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
const FONT_FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSerif.ttf', 'DejaVuSerif-Bold.ttf', 'DejaVuSansMono.ttf', 'DejaVuSansMono-Bold.ttf'].map(
  (f) => join(fontDir, f),
);
const RENDER_OPTIONS = { font: { fontFiles: FONT_FILES, loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans' } };

async function rasterise(svg: string): Promise<Buffer> {
  return (await renderAsync(svg, RENDER_OPTIONS)).asPng();
}

const escapeXml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

// ---- Social icons: a rounded square in the network's colour with a white mark, drawn at 2×.

const ICON_COLOURS: Record<SocialNetwork, string> = {
  linkedin: '#0a66c2',
  x: '#000000',
  facebook: '#1877f2',
  instagram: '#d62976',
  youtube: '#ff0000',
  github: '#24292f',
};

/** The white mark on each icon: letters where a network is known by them, simple shapes otherwise. */
function iconMark(network: SocialNetwork): string {
  const letters = (text: string, size: number, y: number) =>
    `<text x="20" y="${y}" font-family="DejaVu Sans" font-weight="bold" font-size="${size}" fill="#fff" text-anchor="middle">${text}</text>`;
  switch (network) {
    case 'linkedin':
      return letters('in', 20, 28);
    case 'x':
      return letters('X', 22, 28);
    case 'facebook':
      return letters('f', 26, 31);
    case 'github':
      return letters('GH', 15, 26);
    case 'instagram':
      return '<rect x="10" y="10" width="20" height="20" rx="6" fill="none" stroke="#fff" stroke-width="3"/><circle cx="20" cy="20" r="5" fill="none" stroke="#fff" stroke-width="3"/><circle cx="26.5" cy="13.5" r="1.6" fill="#fff"/>';
    case 'youtube':
      return '<path d="M16 13 L28 20 L16 27 Z" fill="#fff"/>';
  }
}

export function socialIconSvg(network: SocialNetwork): string {
  const px = SOCIAL_ICON_PX * 2;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${px}" height="${px}" viewBox="0 0 40 40"><rect width="40" height="40" rx="8" fill="${ICON_COLOURS[network]}"/>${iconMark(network)}</svg>`;
}

// ---- Starter thumbnails: the design drawn for a sample person, as the gallery shows it.

const SAMPLE = {
  name: 'Ada Lovelace',
  pronouns: 'she/her',
  title: 'Engineer',
  department: 'Research',
  phone: '+44 20 7946 0000',
  mobile: '+44 7700 900000',
  email: 'ada@example.com',
  website: 'example.com',
  address: '12 Analytical Row, London',
};

const FAMILIES: Record<Design['style']['fontFamily'], string> = {
  arial: 'DejaVu Sans',
  helvetica: 'DejaVu Sans',
  verdana: 'DejaVu Sans',
  tahoma: 'DejaVu Sans',
  trebuchet: 'DejaVu Sans',
  georgia: 'DejaVu Serif',
  times: 'DejaVu Serif',
  courier: 'DejaVu Sans Mono',
};

const WIDTH = 520;
const PAD = 16;

/** Draws blocks one under the other from (x, y); answers the SVG and the height used. */
class Sketch {
  parts: string[] = [];
  readonly design: Design;
  readonly x: number;
  y: number;
  constructor(design: Design, x: number, y: number) {
    this.design = design;
    this.x = x;
    this.y = y;
  }

  private get s() {
    return this.design.style;
  }

  /** One line of text; `[T]` marks a contact label, drawn bold in the accent colour as the signature shows it. */
  text(content: string, opts: { size?: number; color?: string; bold?: boolean; x?: number } = {}) {
    const size = opts.size ?? this.s.fontSize;
    this.y += size + 5;
    const body = escapeXml(content).replace(/\[(\w)\]/g, `<tspan fill="${this.s.accentColor}" font-weight="bold">$1</tspan>`);
    this.parts.push(
      `<text x="${opts.x ?? this.x}" y="${this.y - 4}" font-family="${FAMILIES[this.s.fontFamily]}" font-size="${size}" fill="${opts.color ?? this.s.textColor}"${opts.bold ? ' font-weight="bold"' : ''} xml:space="preserve">${body}</text>`,
    );
  }

  block(block: Block, inline: boolean) {
    const { accentColor, fontSize } = this.s;
    switch (block.type) {
      case 'identity': {
        const name = block.show.includes('name') ? SAMPLE.name + (block.show.includes('pronouns') ? ` (${SAMPLE.pronouns})` : '') : '';
        const rest = block.show.filter((f) => f === 'title' || f === 'department').map((f) => SAMPLE[f]);
        if (inline) this.text([name, ...rest].filter(Boolean).join(' | '), { bold: true });
        else {
          if (name) this.text(name, { size: fontSize + 3, bold: true });
          if (rest.length) this.text(rest.join(', '), { color: accentColor });
        }
        return;
      }
      case 'contact': {
        const label: Record<string, string> = { phone: 'T', mobile: 'M', email: 'E', website: 'W', address: '' };
        const values = block.show.map((f) => `${label[f] ? `[${label[f]}] ` : ''}${SAMPLE[f]}`);
        if (inline) this.text(values.join(' | '));
        else for (const v of values) this.text(v);
        return;
      }
      case 'photo': {
        const size = Math.round(block.size * 0.8);
        const r = block.shape === 'circle' ? size / 2 : 4;
        this.parts.push(
          `<rect x="${this.x}" y="${this.y + 2}" width="${size}" height="${size}" rx="${r}" fill="#d7dbe3"/>` +
            `<circle cx="${this.x + size / 2}" cy="${this.y + 2 + size * 0.4}" r="${size * 0.18}" fill="#9aa3b2"/>` +
            `<path d="M${this.x + size * 0.2} ${this.y + 2 + size * 0.85} Q${this.x + size / 2} ${this.y + 2 + size * 0.5} ${this.x + size * 0.8} ${this.y + 2 + size * 0.85} Z" fill="#9aa3b2"/>`,
        );
        this.y += size + 8;
        return;
      }
      case 'social': {
        block.networks.forEach((n, i) => {
          this.parts.push(`<rect x="${this.x + i * 26}" y="${this.y + 6}" width="20" height="20" rx="4" fill="${ICON_COLOURS[n]}"/>`);
        });
        this.y += 30;
        return;
      }
      case 'divider':
        this.parts.push(`<rect x="${this.x}" y="${this.y + 5}" width="${WIDTH - this.x - PAD}" height="1.5" fill="${accentColor}"/>`);
        this.y += 10;
        return;
      case 'spacer':
        this.y += block.height;
        return;
      case 'button': {
        const w = block.label.length * fontSize * 0.62 + 28;
        this.parts.push(`<rect x="${this.x}" y="${this.y + 8}" width="${w}" height="${fontSize + 14}" rx="4" fill="${accentColor}"/>`);
        this.parts.push(
          `<text x="${this.x + 14}" y="${this.y + 8 + fontSize + 6}" font-family="${FAMILIES[this.s.fontFamily]}" font-size="${fontSize}" font-weight="bold" fill="#fff">${escapeXml(block.label)}</text>`,
        );
        this.y += fontSize + 26;
        return;
      }
      case 'disclaimer': {
        const words = block.text.split(/\s+/);
        const perLine = Math.floor((WIDTH - this.x - PAD) / ((fontSize - 2) * 0.55));
        const lines: string[] = [];
        for (const w of words) {
          const last = lines.at(-1);
          if (last !== undefined && `${last} ${w}`.length <= perLine) lines[lines.length - 1] = `${last} ${w}`;
          else lines.push(w);
        }
        for (const l of lines.slice(0, 3)) this.text(l, { size: Math.max(10, fontSize - 2), color: '#777777' });
        return;
      }
      default: {
        const label = { logo: 'Logo', banner: 'Banner', campaign: 'Campaign banner', html: 'Custom HTML' }[block.type];
        const h = block.type === 'logo' ? 28 : 44;
        this.parts.push(
          `<rect x="${this.x}" y="${this.y + 6}" width="${block.type === 'logo' ? 110 : WIDTH - this.x - PAD}" height="${h}" rx="3" fill="#eef0f4" stroke="#c9ced8" stroke-dasharray="4 3"/>`,
        );
        this.parts.push(`<text x="${this.x + 10}" y="${this.y + 6 + h / 2 + 4}" font-family="DejaVu Sans" font-size="11" fill="#8a93a3">${label}</text>`);
        this.y += h + 10;
      }
    }
  }
}

export function starterThumbnailSvg(design: Design): string {
  const isMedia = (b: Block) => b.type === 'photo' || b.type === 'logo';
  const isFooter = (b: Block) => b.type === 'banner' || b.type === 'campaign' || b.type === 'disclaimer';
  const inline = (b: Block) => design.layout === 'compact' && (b.type === 'identity' || b.type === 'contact');
  const parts: string[] = [];
  let height: number;
  if (design.layout === 'side-by-side' && design.blocks.some(isMedia)) {
    const left = new Sketch(design, PAD, PAD);
    for (const b of design.blocks.filter(isMedia)) left.block(b, false);
    const columnX = PAD + Math.max(...design.blocks.filter(isMedia).map((b) => (b.type === 'photo' ? b.size * 0.8 : 110))) + 14;
    const right = new Sketch(design, columnX + 14, PAD);
    for (const b of design.blocks.filter((b) => !isMedia(b) && !isFooter(b))) right.block(b, false);
    const top = Math.max(left.y, right.y);
    parts.push(...left.parts, `<rect x="${columnX}" y="${PAD}" width="2" height="${top - PAD}" fill="${design.style.accentColor}"/>`, ...right.parts);
    const footer = new Sketch(design, PAD, top + 4);
    for (const b of design.blocks.filter(isFooter)) footer.block(b, false);
    parts.push(...footer.parts);
    height = footer.y;
  } else {
    const sketch = new Sketch(design, PAD, PAD);
    for (const b of design.blocks) sketch.block(b, inline(b));
    parts.push(...sketch.parts);
    height = sketch.y;
  }
  const h = Math.max(120, Math.ceil(height + PAD));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${h}" viewBox="0 0 ${WIDTH} ${h}"><rect width="${WIDTH}" height="${h}" fill="#ffffff"/>${parts.join('')}</svg>`;
}

/** Made once per process, on first request: a few kilobytes each. */
const made = new Map<string, Promise<Buffer>>();

function once(key: string, make: () => string): Promise<Buffer> {
  let png = made.get(key);
  if (!png) {
    png = rasterise(make());
    made.set(key, png);
    png.catch(() => made.delete(key));
  }
  return png;
}

export function isSocialNetwork(value: string): value is SocialNetwork {
  return (SOCIAL_NETWORKS as readonly string[]).includes(value);
}

export function socialIconPng(network: SocialNetwork): Promise<Buffer> {
  return once(`icon:${network}`, () => socialIconSvg(network));
}

export function starterThumbnailPng(starterId: string, design: Design): Promise<Buffer> {
  return once(`starter:${starterId}`, () => starterThumbnailSvg(design));
}
