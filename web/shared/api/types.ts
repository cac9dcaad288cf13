// The one place the web apps take the API's types from: the client generated from the committed
// OpenAPI document (client/).
export type { paths, components, operations, Org, User, PlanStatus, Template, RenderedSignature, Schemas } from '../../../client/index.ts';
import type { User } from '../../../client/index.ts';

export type Role = User['role'];
