// A rule's or a campaign audience's conditions in words ("department is Sales and role is admin"):
// the `when` object of docs/api.md, "Rules", as the Rules and Campaigns pages list it.
import type { components } from './api/types.ts';

export type When = components['schemas']['RuleWhenInput'];

export function describeWhen(when: When): string {
  const parts: string[] = [];
  if (when.departments) parts.push(`department is ${when.departments.join(' or ')}`);
  if (when.roles) parts.push(`role is ${when.roles.join(' or ')}`);
  if (when.userIds) parts.push(when.userIds.length === 1 ? 'one chosen person' : `one of ${when.userIds.length} chosen people`);
  if (when.groups) parts.push(`in group ${when.groups.join(' or ')}`);
  if (when.attributes) parts.push(...Object.entries(when.attributes).map(([k, v]) => `${k} is ${v}`));
  if (when.emailDomains) parts.push(`address at ${when.emailDomains.join(' or ')}`);
  return parts.length ? parts.join(' and ') : 'everyone';
}
