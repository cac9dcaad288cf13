// A user's rendered signature: what the render service answers and its output cache holds
// (cache/namespaces.ts), declared here so the cache need not import the render capability; and a
// render's refusal, which the cache remembers the same way.
import type { ErrorCode, ErrorDetails } from './errors.ts';

export interface Rendered {
  userId: string;
  templateId: string | null;
  /** The assignment rule that chose the template (src/rules/); null or absent: the default or an explicit one. */
  ruleId?: string | null;
  html: string;
  text: string;
  bytes: number;
  warnings: string[];
}

/** A render thread's verdict that a template breaks its limits with one user's values (a 400 or a 413). */
export interface RenderRefused {
  code: ErrorCode;
  message: string;
  details: ErrorDetails | undefined;
}
