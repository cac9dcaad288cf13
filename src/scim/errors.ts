// SCIM's own error shape (RFC 7644 §3.12): SCIM clients read `status` (a string), `scimType` and
// `detail`, never our envelope. Everything under /scim/v2 answers errors this way (routes.ts).
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export type ScimType = 'invalidFilter' | 'invalidSyntax' | 'invalidValue' | 'invalidPath' | 'noTarget' | 'uniqueness' | 'mutability' | 'tooMany';

export class ScimError extends Error {
  readonly status: number;
  readonly scimType: ScimType | undefined;
  constructor(status: number, detail: string, scimType?: ScimType) {
    super(detail);
    this.status = status;
    this.scimType = scimType;
  }

  body() {
    return { schemas: [SCIM_ERROR_SCHEMA], status: String(this.status), ...(this.scimType ? { scimType: this.scimType } : {}), detail: this.message };
  }
}

export const scimNotFound = (what: 'User' | 'Group', id: string) => new ScimError(404, `${what} ${id} not found.`);
export const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');
