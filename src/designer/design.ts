// The design document (version 1): what the designer edits and the service compiles into a
// template's `html` and `text` (compile.ts). One zod schema is the validation, the TypeScript
// types and the JSON Schema of the OpenAPI document. Every object is strict: an unknown block
// type or field is a 400 naming it, not something silently dropped. Every free-text string is
// `storableText`: a NUL or a lone surrogate is a 400 naming it, not a 500 from the database.
import { z } from 'zod';
import { storableText } from '../lib/text.ts';
import { isWebLink, MAX_LINK_CHARS } from '../lib/track-mark.ts';

const color = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour as #rrggbb');

/**
 * A link a recipient may follow: web, mail or phone; nothing a mail client would run. A web link
 * renders as a click link, so it is held to the click tracker's own rule (`isWebLink`: no control
 * character, at most MAX_LINK_CHARS); a mail link to the same characters, though it is not tracked.
 */
const link = storableText()
  .trim()
  .min(1)
  .max(MAX_LINK_CHARS)
  .refine((value) => isWebLink(value) || /^(mailto:[^\s"'<>\p{Cc}]+|tel:[+0-9 ()./-]+)$/iu.test(value), {
    message: 'a link: https://…, http://…, mailto:… or tel:…, without spaces, quotes, angle brackets or control characters',
  });

const imageId = z.uuid();
const label = (max: number) => storableText().trim().min(1).max(max);

export const FONT_FAMILIES = ['arial', 'helvetica', 'georgia', 'times', 'verdana', 'tahoma', 'trebuchet', 'courier'] as const;
export const IDENTITY_FIELDS = ['name', 'title', 'department', 'pronouns'] as const;
export const CONTACT_FIELDS = ['phone', 'mobile', 'email', 'website', 'address'] as const;
export const SOCIAL_NETWORKS = ['linkedin', 'x', 'facebook', 'instagram', 'youtube', 'github'] as const;

const uniqueList = <T extends string>(values: readonly [T, ...T[]]) =>
  z
    .array(z.enum(values))
    .min(1)
    .max(values.length)
    .refine((list) => new Set(list).size === list.length, { message: 'each entry once' });

export const blockSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('identity'), show: uniqueList(IDENTITY_FIELDS) }),
  z.strictObject({ type: z.literal('contact'), show: uniqueList(CONTACT_FIELDS) }),
  z.strictObject({ type: z.literal('photo'), shape: z.enum(['circle', 'square']), size: z.int().min(48).max(120) }),
  z.strictObject({ type: z.literal('logo'), imageId, width: z.int().min(16).max(300), link: link.optional() }),
  z.strictObject({ type: z.literal('social'), networks: uniqueList(SOCIAL_NETWORKS) }),
  z.strictObject({ type: z.literal('banner'), imageId, link: link.optional(), alt: label(200) }),
  z.strictObject({ type: z.literal('campaign') }),
  z.strictObject({ type: z.literal('disclaimer'), text: label(2000) }),
  z.strictObject({ type: z.literal('divider') }),
  z.strictObject({ type: z.literal('spacer'), height: z.int().min(4).max(48) }),
  z.strictObject({ type: z.literal('button'), label: label(60), link }),
  z.strictObject({ type: z.literal('html'), html: storableText().min(1).max(20_000) }),
]);

/**
 * The most characters a design's html blocks hold together: the template a design compiles to is
 * at most 100,000 characters (Liquid's parse limit, src/render/liquid.ts), so more can never save;
 * refused here, before the compiler spends the event loop on reading every block's text
 * (30 blocks of 20,000 characters took ~110 ms of it only to be refused in the render thread).
 */
export const HTML_BLOCKS_MAX_CHARS = 100_000;

/** A 400 naming the html block that brings the design's html past HTML_BLOCKS_MAX_CHARS. */
function htmlWithinCap(blocks: { type: string; html?: string }[], ctx: z.RefinementCtx): void {
  let total = 0;
  for (const [i, block] of blocks.entries()) {
    total += block.type === 'html' ? (block.html?.length ?? 0) : 0;
    if (total > HTML_BLOCKS_MAX_CHARS) {
      ctx.addIssue({
        code: 'custom',
        path: [i, 'html'],
        message: `the html blocks up to this one hold ${total} characters; together they may hold at most ${HTML_BLOCKS_MAX_CHARS} (a template's size)`,
      });
      return;
    }
  }
}

export const designSchema = z.strictObject({
  version: z.literal(1),
  layout: z.enum(['stacked', 'side-by-side', 'compact']),
  style: z.strictObject({
    fontFamily: z.enum(FONT_FAMILIES),
    // A number, as DECISIONS has it: 13.5 px is a size a person may choose.
    fontSize: z.number().min(11).max(16),
    textColor: color,
    accentColor: color,
    linkColor: color,
  }),
  blocks: z.array(blockSchema).min(1).max(30).superRefine(htmlWithinCap),
});

export type Design = z.infer<typeof designSchema>;
export type Block = z.infer<typeof blockSchema>;
export type BlockType = Block['type'];
export type DesignStyle = Design['style'];
export type SocialNetwork = (typeof SOCIAL_NETWORKS)[number];
