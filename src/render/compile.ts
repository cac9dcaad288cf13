// The CPU work on a template, run only in the render worker (worker.ts): a save proves both parts
// parse, makes the HTML email-safe and renders it once with sample values inside the limits; a
// first render fills a user's values in and sanitizes the output. Each step is bounded by the
// thread's own CPU time, so the same template passes whether the machine is idle or busy.
import type { Template } from 'liquidjs';
import { AppError } from '../kernel/errors.ts';
import { htmlLiquid, KNOWN_LIST, LIMITS, parseTemplate, renderTemplate, textLiquid, unknownVariables } from './liquid.ts';
import { refusalSubject, type TemplateOrigin } from './refusal.ts';
import { prepareTemplateHtml, renderWarnings, sanitizeRendered, TemplateRefused } from './email-html.ts';
import { clientSupportWarnings } from './email-support.ts';

/** CPU time a save (parse, inline, sanitize, trial render) may take, on top of the render limit. */
export const COMPILE_CPU_MS = 1_000;

/** What a template sees (docs/api.md, "Rendering and the pixel"): the person, their org, the pixel. */
export interface Scope {
  user: {
    name: string;
    title: string;
    email: string;
    phone: string;
    mobile: string;
    department: string;
    pronouns: string;
    website: string;
    address: string;
    /** `{base_url}/v1/images/{photoImageId}`, or "" without a photo. */
    photo_url: string;
    social: Record<string, string>;
    attributes: Record<string, string>;
  };
  org: { name: string; website: string; address: string; social: Record<string, string>; logo_url: string };
  /** An active campaign's banner for this person (the design's campaign block), or empty. */
  campaign: { banner: string; text: string };
  pixel_url: string;
}

/**
 * The person a save renders once and a preview without a user shows: every field filled, so a
 * design shows all its blocks and a template's every branch runs inside the limits.
 */
export const SAMPLE_SCOPE: Scope = {
  user: {
    name: 'Ada Lovelace',
    title: 'Engineer',
    email: 'ada@example.com',
    phone: '+44 20 7946 0000',
    mobile: '+44 7700 900000',
    department: 'Research',
    pronouns: 'she/her',
    website: 'https://ada.example.com',
    address: "12 St James's Square\nLondon SW1Y 4JH",
    photo_url: 'https://example.com/v1/images/00000000-0000-4000-8000-000000000001',
    social: {
      linkedin: 'https://www.linkedin.com/in/ada',
      x: 'https://x.com/ada',
      facebook: 'https://www.facebook.com/ada',
      instagram: 'https://www.instagram.com/ada',
      youtube: 'https://www.youtube.com/@ada',
      github: 'https://github.com/ada',
    },
    attributes: {},
  },
  org: {
    name: 'Example Ltd',
    website: 'https://example.com',
    address: '1 Example Street\nLondon',
    social: { linkedin: 'https://www.linkedin.com/company/example' },
    logo_url: 'https://example.com/v1/images/00000000-0000-4000-8000-000000000002',
  },
  campaign: { banner: '', text: '' },
  pixel_url: 'https://example.com/v1/p/00000000-0000-4000-8000-000000000000',
};

export interface Parsed {
  html: Template[];
  text: Template[];
}

export interface RenderedParts {
  html: string;
  text: string;
  bytes: number;
  warnings: string[];
}

/** This thread's CPU time in ms (user and system), not the wall clock. */
export function threadCpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

const wallMs = performance.now.bind(performance);
let readAtWallMs = Number.NEGATIVE_INFINITY;
let lastCpuMs = 0;

/**
 * This thread's CPU time in ms, read again only once the wall clock has moved on by 1 ms: Liquid
 * asks for the time before every node of a template, and each read of the CPU time is a system
 * call (getrusage), which made a tenth of a first render. A thread cannot spend more CPU time than
 * wall time passes, so the answer is about 1 ms behind, plus the step in which the kernel accounts
 * CPU time (a scheduler tick): a few ms, ample for a 100 ms limit.
 */
export function coarseThreadCpuMs(): number {
  const now = wallMs();
  if (now - readAtWallMs >= 1) {
    readAtWallMs = now;
    lastCpuMs = threadCpuMs();
  }
  return lastCpuMs;
}

/** A check to call between steps: refuses once the thread has spent `ms` of CPU since it was made. */
export function cpuBudget(ms: number, origin: TemplateOrigin = 'body'): () => void {
  const start = threadCpuMs();
  const { field, subject, context } = refusalSubject(origin, 'html');
  return () => {
    if (threadCpuMs() - start > ms) {
      throw new AppError('BAD_REQUEST', `${subject} needs more than ${ms} ms of CPU time to prepare${context}; simplify it.`, {
        details: origin === 'body' ? { field } : { field, part: 'html' },
      });
    }
  };
}

export interface CompiledTemplate {
  htmlPrepared: string;
  parsed: Parsed;
  /** The save's checks: unknown variables, features a major client will not show. */
  warnings: string[];
  /** What a render of the sample person would warn (Gmail's length, unsized images). */
  sampleWarnings: string[];
}

export async function compileTemplate(input: { html: string; text: string }): Promise<CompiledTemplate> {
  const check = cpuBudget(COMPILE_CPU_MS);
  // Syntax errors are reported against the admin's own source (its lines and columns).
  parseTemplate(input.html, 'html');
  const text = parseTemplate(input.text, 'text');
  check();
  let htmlPrepared: string;
  try {
    htmlPrepared = prepareTemplateHtml(input.html, check);
  } catch (err) {
    if (err instanceof TemplateRefused) throw new AppError('BAD_REQUEST', `body.html: ${err.message}`, { details: { field: 'body.html' } });
    // juice and the serializers recurse; the caps should prevent it, this keeps it a 400 if not.
    if (err instanceof RangeError)
      throw new AppError('BAD_REQUEST', 'body.html: the HTML is nested too deeply to process.', { details: { field: 'body.html' } });
    throw err;
  }
  const html = parseTemplate(htmlPrepared, 'html');
  check();
  const sampleHtml = renderTemplate(html, htmlLiquid, SAMPLE_SCOPE, 'html');
  renderTemplate(text, textLiquid, SAMPLE_SCOPE, 'text');
  const unknown = [...new Set([...unknownVariables(html, htmlLiquid), ...unknownVariables(text, textLiquid)])].sort();
  const warnings = unknown.map((v) => `Unknown variable "${v}": it renders empty. Known: ${KNOWN_LIST}.`);
  check();
  warnings.push(...clientSupportWarnings(htmlPrepared));
  check();
  // A save warns as each render will (DECISIONS: every save's warnings include Gmail's length), of
  // the sample person's signature: every field filled, as long as a user's usually gets.
  const sampleWarnings = renderWarnings(sanitizeRendered(sampleHtml).html);
  check();
  return { htmlPrepared, parsed: { html, text }, warnings, sampleWarnings };
}

export function parseSaved(t: { htmlPrepared: string; text: string }): Parsed {
  return { html: parseTemplate(t.htmlPrepared, 'html'), text: parseTemplate(t.text, 'text') };
}

/**
 * A user's signature from a parsed template: rendered under the limits, then sanitized. `origin`
 * says what a refusal names: the request's html (a preview) or the saved template (a render).
 */
export async function renderSignature(p: Parsed, scope: Scope, limitBytes: number, origin: TemplateOrigin): Promise<RenderedParts> {
  const raw = renderTemplate(p.html, htmlLiquid, scope, 'html', origin);
  const text = renderTemplate(p.text, textLiquid, scope, 'text', origin);
  // Far over the limit (the memory limit allows 2 MB) it is refused unsanitized: removing tags
  // cannot bring it under, and sanitizing megabytes would only spend CPU.
  const rawBytes = Buffer.byteLength(raw, 'utf8');
  if (rawBytes > limitBytes * 8) throw tooLarge(rawBytes, limitBytes);
  const check = cpuBudget(LIMITS.renderMs, origin);
  const { html, removedDataImage } = sanitizeRendered(raw);
  check();
  const bytes = Buffer.byteLength(html, 'utf8');
  if (bytes > limitBytes) throw tooLarge(bytes, limitBytes);
  const warnings = renderWarnings(html);
  if (removedDataImage) warnings.push('An embedded (base64) image was removed: it breaks in Gmail; host it instead.');
  return { html, text, bytes, warnings };
}

function tooLarge(bytes: number, limitBytes: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `The rendered signature is ${bytes} bytes, over the limit of ${limitBytes} bytes: shrink the template.`, {
    details: { bytes, limitBytes },
  });
}
