// The options' checks, so that every error names its option and what was given:
// `--seats: expected a whole number, got "abc"` (zod's own messages speak of types: "expected
// number, received NaN").
import { z } from 'zod';
import { UsageError } from './errors.ts';

const shown = (input: unknown) => JSON.stringify(input);

/** A required text option. */
export const requiredText = (max: number) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? 'is required' : `expected text, got ${shown(iss.input)}`) })
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must have at most ${max} characters`);

/** A whole number ≥ 0, written in decimal digits; `def` when the option is absent. */
export const wholeNumber = (def: number, max = 1_000_000) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return def;
      if (!/^\d+$/.test(v.trim())) {
        ctx.addIssue({ code: 'custom', message: `expected a whole number, got ${shown(v)}` });
        return z.NEVER;
      }
      if (Number(v) > max) {
        ctx.addIssue({ code: 'custom', message: `expected at most ${max}, got ${shown(v)}` });
        return z.NEVER;
      }
      return Number(v);
    });

/** A required email address. */
export const email = () => z.email({ error: (iss) => (iss.input === undefined ? 'is required' : `expected an email address, got ${shown(iss.input)}`) });

/** A password of at least `min` characters (its value is never shown). */
export const password = (min: number) =>
  z.string({ error: (iss) => (iss.input === undefined ? 'is required' : 'expected text') }).min(min, `must have at least ${min} characters`);

/** Parses a command's option values, or throws a UsageError naming each bad option. */
export function parseOptions<T extends z.ZodType>(schema: T, values: Record<string, unknown>): z.output<T> {
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  throw new UsageError(parsed.error.issues.map((i) => `--${String(i.path[0] ?? '?')}: ${i.message}`).join('; '));
}
