// The staff API's shapes, as the OpenAPI document names them (web/shared/api/types.ts).
import type { components, paths } from '../../shared/api/types.ts';

type Schemas = components['schemas'];
export type AdminOrg = Schemas['AdminOrg'];
export type StaffMember = Schemas['StaffMember'];
export type StaffAuditEntry = Schemas['StaffAuditEntry'];
export type AuditEntry = Schemas['AuditEntry'];
export type PaymentEvent = paths['/v1/admin/webhook-events']['get']['responses'][200]['content']['application/json']['items'][number];
export type PaymentEventDetail = paths['/v1/admin/webhook-events/{eventId}']['get']['responses'][200]['content']['application/json'];
export type ReplayResult = paths['/v1/admin/webhook-events/{eventId}/replay']['post']['responses'][200]['content']['application/json'];
