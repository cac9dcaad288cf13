// SCIM list filters (RFC 7644 §3.4.2.2) as Okta and Entra ID send them: `eq`, joined by `and`, on
// userName, externalId, emails[type eq "work"].value (or emails.value) and displayName; groups on
// displayName and externalId. The grammar is scim2-parse-filter's (Unlicense, maintained); what
// we wrote is the step from its tree to a repository filter: only what we can answer with an
// indexed equality, anything else a 400 `invalidFilter` rather than a silently wrong list.
import { parse, type Compare, type Filter, type LogExp, type ValuePath } from 'scim2-parse-filter';
import type { ScimGroupFilter, ScimUserFilter } from '../store/repositories/scim.ts';
import { ScimError } from './errors.ts';

const USER_ATTRIBUTES: Record<string, Exclude<keyof ScimUserFilter, 'none'>> = {
  username: 'userName',
  externalid: 'externalId',
  displayname: 'displayName',
  'emails.value': 'email',
  'name.formatted': 'displayName',
};
const GROUP_ATTRIBUTES: Record<string, Exclude<keyof ScimGroupFilter, 'none'>> = { displayname: 'displayName', externalid: 'externalId' };

const unsupported = (detail: string) => new ScimError(400, detail, 'invalidFilter');

/** The comparisons of an `and` of `eq`s, each as [attribute path, value]. */
function comparisons(filter: Filter): [string, string][] {
  switch (filter.op) {
    case 'and':
      return (filter as LogExp).filters.flatMap(comparisons);
    case 'eq': {
      const { attrPath, compValue } = filter as Compare;
      return [[attrPath.toLowerCase().replace(/^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/, ''), String(compValue)]];
    }
    case '[]': {
      // emails[type eq "work"]: we keep one address, the work one; any other type matches nothing.
      const path = filter as ValuePath;
      if (path.attrPath.toLowerCase() !== 'emails') throw unsupported(`Filtering on ${path.attrPath}[…] is not supported.`);
      const inner = comparisons(path.valFilter);
      return inner.map(([attr, value]) => [`emails.${attr}`, value]);
    }
    default:
      throw unsupported(`The filter operator ${filter.op} is not supported: use eq, joined by and.`);
  }
}

function parsed(text: string): Filter {
  try {
    return parse(text);
  } catch {
    throw unsupported('The filter is not valid SCIM filter syntax.');
  }
}

export function userFilter(text: string | undefined): ScimUserFilter {
  if (text === undefined || text.trim() === '') return {};
  const filter: ScimUserFilter = {};
  for (const [attr, value] of comparisons(parsed(text))) {
    if (attr === 'emails.type' || attr === 'emails.primary') {
      if (!['work', 'true'].includes(value.toLowerCase())) filter.none = true;
      continue;
    }
    const key = USER_ATTRIBUTES[attr];
    if (!key) throw unsupported(`Filtering users on ${attr} is not supported: use userName, externalId, emails or displayName.`);
    if (filter[key] !== undefined && filter[key] !== value) filter.none = true;
    (filter as Record<string, unknown>)[key] = value;
  }
  return filter;
}

export function groupFilter(text: string | undefined): ScimGroupFilter {
  if (text === undefined || text.trim() === '') return {};
  const filter: ScimGroupFilter = {};
  for (const [attr, value] of comparisons(parsed(text))) {
    const key = GROUP_ATTRIBUTES[attr];
    if (!key) throw unsupported(`Filtering groups on ${attr} is not supported: use displayName or externalId.`);
    if (filter[key] !== undefined && filter[key] !== value) filter.none = true;
    filter[key] = value;
  }
  return filter;
}
