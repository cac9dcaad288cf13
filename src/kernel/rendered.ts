// A user's rendered signature: what the render service answers and its output cache holds
// (cache/namespaces.ts), declared here so the cache need not import the render capability.
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
