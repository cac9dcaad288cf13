// oidc-provider's storage adapter over our database (see the library's example/my_adapter.js).
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../../store/db.ts';
import { oidcRepo } from '../../store/repositories/oidc.ts';

export function adapterFor(db: Db) {
  return class DbAdapter implements Adapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }
    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      await oidcRepo.upsert(db, this.model, id, payload as Record<string, unknown>, expiresIn);
    }
    async find(id: string): Promise<AdapterPayload | undefined> {
      return (await oidcRepo.find(db, this.model, { id })) as AdapterPayload | undefined;
    }
    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return (await oidcRepo.find(db, this.model, { uid })) as AdapterPayload | undefined;
    }
    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return (await oidcRepo.find(db, this.model, { userCode })) as AdapterPayload | undefined;
    }
    async consume(id: string): Promise<void> {
      await oidcRepo.consume(db, this.model, id);
    }
    async destroy(id: string): Promise<void> {
      await oidcRepo.destroy(db, this.model, id);
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      await oidcRepo.revokeByGrantId(db, grantId);
    }
  };
}
