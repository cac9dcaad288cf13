// What profiles keep beyond plain columns (migrations 110 and 140): an org's custom fields and who
// set a user's photo. Re-exported by schema.ts, whose tables use them.

export type CustomFieldType = 'text' | 'url' | 'phone';
/** One of an org's custom fields (`PUT /v1/orgs/{orgId}/fields`). */
export interface CustomField {
  key: string;
  label: string;
  type: CustomFieldType;
  selfService: boolean;
}

/** Who set a user's photo: a directory sync, or a person (an admin or the user), whose choice a sync keeps (src/directory/photos.ts). */
export type PhotoSource = 'directory' | 'person';
