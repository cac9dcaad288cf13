// Which rule a user falls under (docs/api.md, "Rules"): pure, so unit tests cover every condition.
// A rule's `when` holds when every condition it gives holds; the first rule that holds wins.
import type { OrgRole, RuleWhen, StoredRule } from '../store/schema.ts';

/** What the conditions look at, of one user. */
export interface RuleFacts {
  userId: string;
  email: string;
  role: OrgRole;
  department: string;
  attributes: Record<string, string>;
  /** Lower-cased display names of the user's SCIM groups. */
  groups: readonly string[];
}

/** A new message, or a reply or forward (which take a rule's `replyTemplateId` when it has one). */
export type Compose = 'new' | 'reply' | 'forward';

const norm = (s: string) => s.trim().toLowerCase();
const domainOf = (email: string) => norm(email.slice(email.lastIndexOf('@') + 1));

/** Whether the user meets every condition the `when` gives (text compared without case or outer spaces). */
export function matches(when: RuleWhen, user: RuleFacts): boolean {
  if (when.departments && !when.departments.some((d) => norm(d) === norm(user.department))) return false;
  if (when.roles && !when.roles.includes(user.role)) return false;
  if (when.userIds && !when.userIds.some((id) => id.toLowerCase() === user.userId.toLowerCase())) return false;
  if (when.groups && !when.groups.some((g) => user.groups.includes(norm(g)))) return false;
  if (when.attributes) {
    for (const [key, value] of Object.entries(when.attributes)) {
      // Own properties only: a key such as `constructor` (a valid field key) must not read Object's.
      const own = Object.hasOwn(user.attributes, key) ? user.attributes[key] : undefined;
      if (norm(own ?? '') !== norm(value)) return false;
    }
  }
  if (when.emailDomains && !when.emailDomains.some((d) => norm(d).replace(/^@/, '') === domainOf(user.email))) return false;
  return true;
}

/** The first rule the user meets and the template it gives for this kind of message; null when none does. */
export function chooseRule(rules: readonly StoredRule[], user: RuleFacts, compose: Compose): { ruleId: string; templateId: string } | null {
  for (const rule of rules) {
    if (!matches(rule.when, user)) continue;
    const templateId = compose !== 'new' && rule.replyTemplateId ? rule.replyTemplateId : rule.templateId;
    return { ruleId: rule.ruleId, templateId };
  }
  return null;
}

/** Whether any rule looks at groups (only then are a user's groups read). */
export const needsGroups = (rules: readonly StoredRule[]) => rules.some((r) => r.when.groups !== undefined);
