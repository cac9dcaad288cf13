// Seals every stored secret again under SECRETS_KEY (`sigsvc secrets rekey`), the step of a key
// rotation between "the service runs with the new key, the old one in SECRETS_KEY_PREVIOUS" and
// "the old key is removed". Every value is opened first: when one opens under no configured key,
// nothing is changed and the answer names it, so that removing the old key afterwards cannot
// strand a secret nobody noticed. Running it again changes nothing (values under SECRETS_KEY stay).
import type { Db } from '../store/db.ts';
import { SEALED_COLUMNS, sealedSecretsRepo, type SealedKind } from '../store/repositories/sealed-secrets.ts';
import { sealedContext, SecretError, type SecretBox } from './secret-box.ts';

export interface RekeyCounts {
  /** Sealed under a previous key, now under SECRETS_KEY (with `dryRun`: would be). */
  resealed: number;
  /** Under SECRETS_KEY already. */
  alreadyCurrent: number;
  /** Replaced or removed by the service between reading and writing: left as they are (a new value is sealed under the service's SECRETS_KEY). */
  changedMeanwhile: number;
}

export interface RekeyResult extends RekeyCounts {
  keyId: string;
  dryRun: boolean;
  bySecret: Record<SealedKind, RekeyCounts>;
}

export interface Unopenable {
  secret: SealedKind;
  orgId: string;
  reason: string;
}

/** Some stored secrets open under no configured key: nothing was changed. */
export class RekeyRefused extends Error {
  readonly unopenable: Unopenable[];
  constructor(unopenable: Unopenable[]) {
    const lines = unopenable.map((u) => `  ${SEALED_COLUMNS[u.secret].what} of org ${u.orgId}: ${u.reason}`);
    super(
      [
        `${unopenable.length} stored secret${unopenable.length === 1 ? '' : 's'} cannot be opened with SECRETS_KEY or SECRETS_KEY_PREVIOUS, so nothing was changed:`,
        ...lines,
        'Add the key they were sealed under to SECRETS_KEY_PREVIOUS, or store them anew (connect the integration again, or rotate the Outlook add-in key), then run this again.',
      ].join('\n'),
    );
    this.name = 'RekeyRefused';
    this.unopenable = unopenable;
  }
}

export async function rekeySecrets(options: { db: Db; secrets: SecretBox; dryRun: boolean }): Promise<RekeyResult> {
  const { db, secrets, dryRun } = options;
  if (!secrets.keyId) throw new SecretError('SECRETS_KEY is not set: set the new key as SECRETS_KEY and the old one as SECRETS_KEY_PREVIOUS.');
  const kinds = Object.keys(SEALED_COLUMNS) as SealedKind[];
  const planned: { kind: SealedKind; orgId: string; from: string; to: string | null }[] = [];
  const unopenable: Unopenable[] = [];
  for (const kind of kinds) {
    for (const { orgId, sealed } of await sealedSecretsRepo.list(db, kind)) {
      try {
        planned.push({ kind, orgId, from: sealed, to: secrets.reseal(sealed, sealedContext(kind, orgId)) });
      } catch (err) {
        if (!(err instanceof SecretError)) throw err;
        unopenable.push({ secret: kind, orgId, reason: err.message });
      }
    }
  }
  if (unopenable.length > 0) throw new RekeyRefused(unopenable);

  const zero = (): RekeyCounts => ({ resealed: 0, alreadyCurrent: 0, changedMeanwhile: 0 });
  const bySecret = Object.fromEntries(kinds.map((k) => [k, zero()])) as Record<SealedKind, RekeyCounts>;
  const total = zero();
  for (const p of planned) {
    const outcome: keyof RekeyCounts =
      p.to === null ? 'alreadyCurrent' : dryRun || (await sealedSecretsRepo.replace(db, p.kind, p.orgId, p.from, p.to)) ? 'resealed' : 'changedMeanwhile';
    bySecret[p.kind][outcome]++;
    total[outcome]++;
  }
  return { keyId: secrets.keyId, dryRun, ...total, bySecret };
}
