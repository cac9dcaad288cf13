/// <reference types="vite/client" />

/** The length limits of each operation's JSON body fields, from the OpenAPI document (web/build.ts). */
declare module 'virtual:field-limits' {
  const limits: Record<string, Record<string, { minLength?: number; maxLength?: number }>>;
  export default limits;
}
