// oidc-provider's storage adapter over our database (see the library's example/my_adapter.js).
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { Db } from '../store/db.ts';
import { oidcRepo } from '../store/repositories/oidc.ts';
import { isStorable } from '../lib/text.ts';

/**
 * Text the database can hold: PostgreSQL's text and jsonb refuse NUL characters and unpaired
 * surrogates (a 500 if they reach it). Anything the provider would store comes from a request
 * (state, nonce, login_hint, …), so such a value is the client's invalid_request.
 */
function storable(value: unknown): boolean {
  if (typeof value === 'string') return isStorable(value);
  if (Array.isArray(value)) return value.every(storable);
  if (value && typeof value === 'object') return Object.entries(value).every(([k, v]) => storable(k) && storable(v));
  return true;
}

export function adapterFor(db: Db, clock: () => Date) {
  return class DbAdapter implements Adapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }
    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      if (!storable(payload)) throw new errors.InvalidRequest('parameters may not contain NUL characters or unpaired surrogates');
      await oidcRepo.upsert(db, this.model, id, payload as Record<string, unknown>, expiresIn, clock());
    }
    async find(id: string): Promise<AdapterPayload | undefined> {
      if (!isStorable(id)) return undefined;
      return (await oidcRepo.find(db, this.model, { id }, clock())) as AdapterPayload | undefined;
    }
    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      if (!isStorable(uid)) return undefined;
      return (await oidcRepo.find(db, this.model, { uid }, clock())) as AdapterPayload | undefined;
    }
    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      if (!isStorable(userCode)) return undefined;
      return (await oidcRepo.find(db, this.model, { userCode }, clock())) as AdapterPayload | undefined;
    }
    async consume(id: string): Promise<void> {
      await oidcRepo.consume(db, this.model, id, clock());
    }
    async destroy(id: string): Promise<void> {
      if (isStorable(id)) await oidcRepo.destroy(db, this.model, id);
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      if (isStorable(grantId)) await oidcRepo.revokeByGrantId(db, grantId);
    }
  };
}
