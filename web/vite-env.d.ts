/// <reference types="vite/client" />

/** Each operation's body field lengths and largest page, from the OpenAPI document (web/build.ts). */
declare module 'virtual:field-limits' {
  const limits: {
    fields: Record<string, Record<string, { minLength?: number; maxLength?: number }>>;
    bounds: Record<
      string,
      Record<string, { minimum?: number; maximum?: number; minLength?: number; maxLength?: number; minItems?: number; maxItems?: number }>
    >;
    pages: Record<string, number>;
    design: Record<string, Record<string, { minimum?: number; maximum?: number; maxLength?: number; maxItems?: number }>>;
  };
  export default limits;
}
