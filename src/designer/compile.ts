// The design compiler: a design document (design.ts) in, a template's `html` and `text` out, both
// Liquid that the render pipeline fills per user afterwards. Pure: no I/O, no clock; what it needs
// to know of the world (the service's URL, the org's images) is passed in.
//
// What it writes is safe in the clients a signature meets (docs/designer.md): one
// table per level of layout with `role="presentation"`, every style inline, `width` and `height`
// attributes on every image (drawn at half its pixel size, so it is sharp on high-density
// screens), no flex, grid, position, float, background images, margins on images, <style> or SVG.
// Optional fields sit in `{% if %}` so an empty one leaves no label or separator behind.
import type { Block, CONTACT_FIELDS, Design, DesignStyle, SocialNetwork } from './design.ts';
import { attr, literalHtml, literalText } from './escape.ts';
import { htmlBlockText } from './html-text.ts';
import { trackMark } from '../lib/track-mark.ts';

export interface DesignImage {
  url: string;
  width: number;
  height: number;
}

export interface CompileContext {
  /** `{base_url}`: hosted social icons live under it. */
  baseUrl: string;
  /** The org's live images by id (logo, banner blocks); an unknown id is a warning and no image. */
  images: ReadonlyMap<string, DesignImage>;
}

export interface Compiled {
  html: string;
  text: string;
  /** What a person should know before saving: a missing image, a blurry one. */
  warnings: string[];
}

const FONT_STACKS: Record<DesignStyle['fontFamily'], string> = {
  arial: 'Arial, Helvetica, sans-serif',
  helvetica: 'Helvetica, Arial, sans-serif',
  georgia: "Georgia, 'Times New Roman', Times, serif",
  times: "'Times New Roman', Times, serif",
  verdana: 'Verdana, Geneva, sans-serif',
  tahoma: 'Tahoma, Verdana, Geneva, sans-serif',
  trebuchet: "'Trebuchet MS', Helvetica, Arial, sans-serif",
  courier: "'Courier New', Courier, monospace",
};

export const NETWORK_NAMES: Record<SocialNetwork, string> = {
  linkedin: 'LinkedIn',
  x: 'X',
  facebook: 'Facebook',
  instagram: 'Instagram',
  youtube: 'YouTube',
  github: 'GitHub',
};

/** Social icons are drawn at this size (CSS pixels); the hosted PNGs are twice it. */
export const SOCIAL_ICON_PX = 20;
const MUTED = '#777777';
const PIXEL = '<img src="{{ pixel_url }}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px" />';

/** A size in CSS px: `fontSize` may be fractional (13.5), and sums of such are rounded to 0.01 px, not 13.299999999999999. */
const px = (n: number) => `${Math.round(n * 100) / 100}px`;

/** A table that lays out and nothing else: screen readers skip it, Outlook adds no spacing. */
const table = (style: string, rows: string) =>
  `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse${style ? `;${style}` : ''}">\n${rows}</table>`;
const row = (style: string, content: string) => `<tr><td${style ? ` style="${style}"` : ''}>${content}</td></tr>\n`;

/** A value of the user's, else the org's: the user's link for a network wins over the org's. */
const userOrOrg = (field: string) => `user.${field} | default: org.${field}`;

interface Part {
  html: string;
  text: string;
}

class Compiler {
  readonly warnings: string[] = [];
  private readonly design: Design;
  private readonly ctx: CompileContext;
  constructor(design: Design, ctx: CompileContext) {
    this.design = design;
    this.ctx = ctx;
  }

  private get style(): DesignStyle {
    return this.design.style;
  }

  /**
   * A block's link as the mark the `track` filter makes (src/lib/track-mark.ts), so it renders as a
   * tracked click URL in the HTML and the text alike. Written here rather than as a filter call:
   * the mark is letters and digits whatever the link holds, where a `%`, a brace or a backslash
   * could not sit in a Liquid string literal (such links were left untracked before).
   */
  private tracked(url: string): string {
    return trackMark(url) as string;
  }

  /**
   * A link around content. `href` is the compiler's own Liquid (a user's field), kept as Liquid;
   * with `typed`, a link a person typed into a block: tracked if it is a web link, else (mailto:)
   * shown as typed, as it is in the text version, never run as Liquid.
   */
  private link(href: string, content: string, opts: { color?: string; bold?: boolean; typed?: boolean } = {}): string {
    const style = `color:${opts.color ?? this.style.linkColor};text-decoration:none${opts.bold ? ';font-weight:bold' : ''}`;
    const value = opts.typed ? literalHtml(this.tracked(href)) : attr(href);
    return `<a href="${value}" style="${style}">${content}</a>`;
  }

  private image(id: string, width: number, what: string): { tag: string; image: DesignImage } | undefined {
    const image = this.ctx.images.get(id);
    if (!image) {
      this.warnings.push(`The ${what} image (${id}) is not one of the organisation's images: it is left out.`);
      return undefined;
    }
    const shown = Math.min(width, image.width);
    const height = Math.max(1, Math.round((image.height * shown) / image.width));
    if (image.width < shown * 2) {
      this.warnings.push(
        `The ${what} image is ${image.width} px wide and shown at ${shown} px: upload one of at least ${shown * 2} px so it stays sharp on high-density screens.`,
      );
    }
    const tag = `<img src="${attr(image.url)}" width="${shown}" height="${height}" alt="" style="display:block;border:0;width:${shown}px;height:${height}px" />`;
    return { tag, image };
  }

  identity(block: Extract<Block, { type: 'identity' }>, inline: boolean): Part {
    const { accentColor, textColor, fontSize } = this.style;
    const show = new Set(block.show);
    const pronouns = show.has('pronouns')
      ? `{% if user.pronouns != blank %} <span style="font-weight:normal;color:${MUTED}">({{ user.pronouns }})</span>{% endif %}`
      : '';
    const name = show.has('name') ? `<strong style="color:${textColor};font-size:${px(fontSize + (inline ? 0 : 3))}">{{ user.name }}</strong>${pronouns}` : '';
    const rest = block.show.filter((f) => f === 'title' || f === 'department');
    const line = rest.map((f) => `{% if user.${f} != blank %}{{ sep }}{{ user.${f} }}{% assign sep = ", " %}{% endif %}`).join('');
    const textRest = rest.map((f) => `{% if user.${f} != blank %}{{ sep }}{{ user.${f} }}{% assign sep = ", " %}{% endif %}`).join('');
    const textPronouns = show.has('pronouns') ? '{% if user.pronouns != blank %} ({{ user.pronouns }}){% endif %}' : '';
    const textName = show.has('name') ? `{{ user.name }}${textPronouns}` : '';
    if (inline) {
      const html = `${name}{% assign sep = "${name ? ' | ' : ''}" %}${line}`;
      return { html, text: `${textName}{% assign sep = "${textName ? ' | ' : ''}" %}${textRest}` };
    }
    let html = name ? row('padding:0 0 2px 0', name) : '';
    if (rest.length > 0) {
      const cond = rest.map((f) => `user.${f} != blank`).join(' or ');
      html += `{%- if ${cond} %}\n${row(`padding:0 0 4px 0;color:${accentColor}`, `{% assign sep = "" %}${line}`)}{%- endif %}\n`;
    }
    const text = [
      textName ? `${textName}\n` : '',
      rest.length ? `{% assign sep = "" %}${textRest}{% if ${rest.map((f) => `user.${f} != blank`).join(' or ')} %}\n{% endif %}` : '',
    ].join('');
    return { html, text };
  }

  private contactField(field: (typeof CONTACT_FIELDS)[number]): { html: string; text: string; cond: string } {
    const { accentColor } = this.style;
    const label = (l: string) => `<span style="color:${accentColor};font-weight:bold">${l}</span>\u00a0`;
    switch (field) {
      case 'phone':
        return {
          cond: 'user.phone != blank',
          html: `${label('T')}${this.link('tel:{{ user.phone | remove: " " }}', '{{ user.phone }}', { color: this.style.textColor })}`,
          text: 'T: {{ user.phone }}',
        };
      case 'mobile':
        return {
          cond: 'user.mobile != blank',
          html: `${label('M')}${this.link('tel:{{ user.mobile | remove: " " }}', '{{ user.mobile }}', { color: this.style.textColor })}`,
          text: 'M: {{ user.mobile }}',
        };
      case 'email':
        return { cond: 'user.email != blank', html: `${label('E')}${this.link('mailto:{{ user.email }}', '{{ user.email }}')}`, text: 'E: {{ user.email }}' };
      case 'website':
        return {
          cond: 'user.website != blank or org.website != blank',
          html: `${label('W')}${this.link(`{{ ${userOrOrg('website')} }}`, `{{ ${userOrOrg('website')} | remove_first: "https://" | remove_first: "http://" }}`)}`,
          text: `W: {{ ${userOrOrg('website')} }}`,
        };
      default:
        return {
          cond: 'user.address != blank or org.address != blank',
          html: `<span style="color:${MUTED}">{{ ${userOrOrg('address')} | escape | newline_to_br | raw }}</span>`,
          text: `{{ ${userOrOrg('address')} }}`,
        };
    }
  }

  contact(block: Extract<Block, { type: 'contact' }>, inline: boolean): Part {
    const fields = block.show.map((f) => this.contactField(f));
    if (inline) {
      return {
        html: `{% assign sep = "" %}${fields.map((f) => `{% if ${f.cond} %}{{ sep }}${f.html}{% assign sep = " | " %}{% endif %}`).join('')}`,
        text: `{% assign sep = "" %}${fields.map((f) => `{% if ${f.cond} %}{{ sep }}${f.text}{% assign sep = " | " %}{% endif %}`).join('')}`,
      };
    }
    return {
      html: fields.map((f) => `{%- if ${f.cond} %}\n${row('padding:1px 0', f.html)}{%- endif %}\n`).join(''),
      text: fields.map((f) => `{% if ${f.cond} %}${f.text}\n{% endif %}`).join(''),
    };
  }

  photo(block: Extract<Block, { type: 'photo' }>): Part {
    const radius = block.shape === 'circle' ? `border-radius:${Math.floor(block.size / 2)}px;` : '';
    const img = `<img src="{{ user.photo_url }}" width="${block.size}" height="${block.size}" alt="{{ user.name }}" style="display:block;border:0;${radius}width:${block.size}px;height:${block.size}px" />`;
    return { html: `{%- if user.photo_url != blank %}\n${row('padding:0 0 6px 0', img)}{%- endif %}\n`, text: '' };
  }

  logo(block: Extract<Block, { type: 'logo' }>): Part {
    const found = this.image(block.imageId, block.width, 'logo');
    if (!found) return { html: '', text: '' };
    const content = block.link ? this.link(block.link, found.tag, { typed: true }) : found.tag;
    return { html: row('padding:0 0 6px 0', content), text: block.link ? `${literalText(this.tracked(block.link))}\n` : '' };
  }

  social(block: Extract<Block, { type: 'social' }>): Part {
    const px = SOCIAL_ICON_PX;
    const icons = block.networks.map((network) => {
      const src = `${this.ctx.baseUrl}/v1/social/${network}.png`;
      const img = `<img src="${attr(src)}" width="${px}" height="${px}" alt="${NETWORK_NAMES[network]}" style="display:block;border:0;width:${px}px;height:${px}px" />`;
      const href = `user.social.${network} | default: org.social.${network}`;
      return {
        cond: `user.social.${network} != blank or org.social.${network} != blank`,
        html: `<td style="padding:0 6px 0 0">${this.link(`{{ ${href} | track }}`, img)}</td>`,
        text: `${NETWORK_NAMES[network]}: {{ ${href} | track }}`,
      };
    });
    const any = icons.map((i) => i.cond).join(' or ');
    const cells = icons.map((i) => `{% if ${i.cond} %}${i.html}{% endif %}`).join('');
    return {
      html: `{%- if ${any} %}\n${row('padding:6px 0 0 0', table('', `<tr>${cells}</tr>\n`))}{%- endif %}\n`,
      text: icons.map((i) => `{% if ${i.cond} %}${i.text}\n{% endif %}`).join(''),
    };
  }

  banner(block: Extract<Block, { type: 'banner' }>): Part {
    const found = this.image(block.imageId, 600, 'banner');
    if (!found) return { html: '', text: '' };
    // The alt text as typed, as in the text version: no Liquid output runs in it. (A function, so
    // a `$&` in it is not read as a replacement pattern.)
    const tag = found.tag.replace('alt=""', () => `alt="${literalHtml(block.alt)}"`);
    const content = block.link ? this.link(block.link, tag, { typed: true }) : tag;
    return { html: row('padding:8px 0 0 0', content), text: `${literalText(block.alt)}${block.link ? `: ${literalText(this.tracked(block.link))}` : ''}\n` };
  }

  block(block: Block, inline: boolean): Part {
    const { accentColor, fontSize } = this.style;
    switch (block.type) {
      case 'identity':
        return this.identity(block, inline);
      case 'contact':
        return this.contact(block, inline);
      case 'photo':
        return this.photo(block);
      case 'logo':
        return this.logo(block);
      case 'social':
        return this.social(block);
      case 'banner':
        return this.banner(block);
      case 'campaign':
        // An active campaign's banner for this user, or nothing (rendered by the campaigns capability).
        return {
          html: `{%- if campaign.banner != blank %}\n${row('padding:8px 0 0 0', '{{ campaign.banner | raw }}')}{%- endif %}\n`,
          text: '{% if campaign.text != blank %}{{ campaign.text }}\n{% endif %}',
        };
      case 'disclaimer':
        return {
          html: row(
            `padding:8px 0 0 0;font-size:${px(Math.max(10, fontSize - 2))};line-height:${px(Math.max(10, fontSize - 2) + 4)};color:${MUTED}`,
            literalHtml(block.text).replaceAll('\n', '<br />'),
          ),
          text: `\n${literalText(block.text)}\n`,
        };
      case 'divider':
        return {
          html: row(
            'padding:6px 0',
            table('width:100%', `<tr><td height="1" style="height:1px;line-height:1px;font-size:1px;border-top:1px solid ${accentColor}">\u00a0</td></tr>\n`),
          ),
          text: '',
        };
      case 'spacer':
        return {
          html: `<tr><td height="${block.height}" style="height:${block.height}px;line-height:${block.height}px;font-size:1px">\u00a0</td></tr>\n`,
          text: '',
        };
      case 'button':
        return {
          html: row(
            'padding:8px 0 0 0',
            table(
              '',
              `<tr><td bgcolor="${accentColor}" style="background-color:${accentColor};border-radius:4px;padding:6px 14px">${this.link(block.link, literalHtml(block.label), { color: '#ffffff', bold: true, typed: true })}</td></tr>\n`,
            ),
          ),
          text: `${literalText(block.label)}: ${literalText(this.tracked(block.link))}\n`,
        };
      case 'html':
        // Hand-written Liquid for what no block does: passed as written; the template checks that
        // every save runs (allowlist, caps, Liquid syntax) apply to it like to any template. Its
        // text content (Liquid kept) is the plain-text version's line.
        return { html: row('', block.html), text: htmlBlockText(block.html) };
    }
  }

  /** Rows of blocks one under the other. */
  stack(blocks: Block[], inline = false): Part {
    const parts = blocks.map((b) => this.block(b, inline));
    return { html: parts.map((p) => p.html).join(''), text: parts.map((p) => p.text).join('') };
  }

  rootStyle(lineHeight: number): string {
    const { fontFamily, fontSize, textColor } = this.style;
    return `font-family:${FONT_STACKS[fontFamily]};font-size:${px(fontSize)};line-height:${px(lineHeight)};color:${textColor}`;
  }

  compile(): Compiled {
    const { layout, blocks, style } = this.design;
    const lineHeight = style.fontSize + 5;
    let body: Part;
    if (layout === 'side-by-side' && blocks.some(isMedia)) {
      const media = this.stack(blocks.filter(isMedia));
      const main = this.stack(blocks.filter((b) => !isMedia(b) && !isFooter(b)));
      const footer = this.stack(blocks.filter(isFooter));
      const columns =
        `<tr><td valign="top" style="padding:0 12px 0 0">${table('', media.html)}</td>` +
        `<td valign="top" style="padding:0 0 0 12px;border-left:2px solid ${style.accentColor}">${table('', main.html)}</td></tr>\n`;
      const bottom = footer.html ? `<tr><td colspan="2">${table('', footer.html)}</td></tr>\n` : '';
      body = { html: columns + bottom, text: main.text + footer.text };
    } else if (layout === 'compact') {
      const lines = blocks.map((b) => this.block(b, b.type === 'identity' || b.type === 'contact'));
      body = {
        html: lines.map((p, i) => (isInline(blocks[i]!) ? row('padding:0', p.html) : p.html)).join(''),
        text: lines.map((p, i) => (isInline(blocks[i]!) ? `${p.text}\n` : p.text)).join(''),
      };
    } else {
      body = this.stack(blocks);
    }
    const html = table(this.rootStyle(lineHeight), `${body.html}<tr><td>${PIXEL}</td></tr>\n`);
    return { html, text: tidyText(body.text), warnings: this.warnings };
  }
}

const isMedia = (b: Block) => b.type === 'photo' || b.type === 'logo';
const isFooter = (b: Block) => b.type === 'banner' || b.type === 'campaign' || b.type === 'disclaimer';
const isInline = (b: Block) => b.type === 'identity' || b.type === 'contact';

/** No run of blank lines, no trailing newline: Liquid tags leave them where a field is empty. */
function tidyText(text: string): string {
  return text.replace(/\n{3,}/g, '\n\n').replace(/^\n+|\n+$/g, '');
}

export function compileDesign(design: Design, ctx: CompileContext): Compiled {
  return new Compiler(design, ctx).compile();
}
