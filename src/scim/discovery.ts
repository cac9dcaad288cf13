// SCIM's discovery resources (RFC 7644 §4, RFC 7643 §5-7): what this service provider supports
// (PATCH yes; bulk, sort, change-password and ETags no; filter up to 1,000 results), its two
// resource types, and the attributes it keeps of each (docs/scim.md, "The mapping").
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, LIST_SCHEMA, USER_SCHEMA } from './mapping.ts';
import { MAX_COUNT } from './service.ts';

const attribute = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});
const multi = (name: string, types: string[]) =>
  attribute(name, {
    type: 'complex',
    multiValued: true,
    subAttributes: [attribute('value'), attribute('type', { canonicalValues: types }), attribute('primary', { type: 'boolean' })],
  });

const schemas = (baseUrl: string) => [
  {
    id: USER_SCHEMA,
    name: 'User',
    description: 'A user of the organisation',
    attributes: [
      attribute('userName', { required: true, uniqueness: 'server' }),
      attribute('externalId', { caseExact: true }),
      attribute('name', { type: 'complex', subAttributes: [attribute('formatted'), attribute('givenName'), attribute('familyName')] }),
      attribute('displayName'),
      attribute('title'),
      attribute('active', { type: 'boolean' }),
      multi('emails', ['work']),
      multi('phoneNumbers', ['work', 'mobile']),
      attribute('groups', { type: 'complex', multiValued: true, mutability: 'readOnly', subAttributes: [attribute('value'), attribute('display')] }),
    ],
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${USER_SCHEMA}` },
  },
  {
    id: ENTERPRISE_SCHEMA,
    name: 'EnterpriseUser',
    description: 'The enterprise extension: only department is kept',
    attributes: [attribute('department')],
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${ENTERPRISE_SCHEMA}` },
  },
  {
    id: GROUP_SCHEMA,
    name: 'Group',
    description: 'A group of users (rules target groups by displayName)',
    attributes: [
      attribute('displayName', { required: true, uniqueness: 'server' }),
      attribute('externalId', { caseExact: true }),
      attribute('members', {
        type: 'complex',
        multiValued: true,
        subAttributes: [attribute('value', { caseExact: true }), attribute('display', { mutability: 'readOnly' })],
      }),
    ],
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${GROUP_SCHEMA}` },
  },
];

const resourceTypes = (baseUrl: string) => [
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    schema: USER_SCHEMA,
    schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/User` },
  },
  {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: 'Group',
    name: 'Group',
    endpoint: '/Groups',
    schema: GROUP_SCHEMA,
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/Group` },
  },
];

const list = (resources: unknown[]) => ({
  schemas: [LIST_SCHEMA],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});

/** Each discovery path and its answer (the same for every org). */
export function discovery(baseUrl: string): Record<string, unknown> {
  const answers: Record<string, unknown> = {
    '/ServiceProviderConfig': {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      documentationUri: `${baseUrl.replace(/\/scim\/v2$/, '')}/docs`,
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: MAX_COUNT },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [
        { type: 'oauthbearertoken', name: 'Bearer token', description: 'The token the dashboard shows once (Integrations → SCIM)', primary: true },
      ],
      meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
    },
    '/ResourceTypes': list(resourceTypes(baseUrl)),
    '/Schemas': list(schemas(baseUrl)),
  };
  for (const t of resourceTypes(baseUrl)) answers[`/ResourceTypes/${t.id}`] = t;
  for (const s of schemas(baseUrl)) answers[`/Schemas/${s.id}`] = s;
  return answers;
}
