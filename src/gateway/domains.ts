// Sender domains (docs/gateway.md, "Domains"): an org claims a domain, proves it with a DNS TXT
// record `_sigsvc.<domain>` = `sigsvc-verify=<token>`, or staff mark it verified. A domain is
// verified for one org at a time; the gateway refuses mail naming it from any other org.
import { randomBytes } from 'node:crypto';
import { domainToASCII } from 'node:url';
import type { Db } from '../store/db.ts';
import { domainsRepo } from '../store/repositories/gateway.ts';
import type { OrgDomainRow } from '../store/schema.ts';
import { isUniqueViolation } from '../store/errors.ts';
import { AppError, badRequest, conflict, notFound } from '../kernel/errors.ts';
import { recordAudit, type WriteContext } from '../audit/record.ts';
import type { TxtLookup } from './dns.ts';

export const RECORD_PREFIX = '_sigsvc.';
export const VALUE_PREFIX = 'sigsvc-verify=';

/** A domain as stored: lower case, ASCII (punycode), no trailing dot; a 400 when it is not one. */
export function normalizeDomain(input: string): string {
  const ascii = domainToASCII(input.trim().replace(/\.$/, '').toLowerCase());
  const labels = ascii.split('.');
  const valid =
    ascii.length > 0 &&
    ascii.length <= 253 &&
    labels.length >= 2 &&
    labels.every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(l)) &&
    !/^\d+$/.test(labels.at(-1) ?? '');
  if (!valid) throw badRequest('domain must be a domain name such as example.com.', { field: 'domain' });
  return ascii;
}

/** A domain named in a path, as it would be stored (an invalid one is simply not found). */
const storedName = (input: string) => domainToASCII(input.trim().replace(/\.$/, '').toLowerCase()) || input.toLowerCase();

export const verificationRecord = (row: OrgDomainRow) => ({
  type: 'TXT' as const,
  name: `${RECORD_PREFIX}${row.domain}`,
  value: `${VALUE_PREFIX}${row.token}`,
});

export function createDomainService(deps: { db: Db; lookupTxt: TxtLookup; clock: () => Date; onChange(): void }) {
  const { db, clock } = deps;

  async function require(orgId: string, domain: string): Promise<OrgDomainRow> {
    const row = await domainsRepo.find(db, orgId, domain);
    if (!row) throw notFound('Domain');
    return row;
  }

  /** Marks verified in the caller's transaction; another org holding it verified is a 409. */
  async function markVerified(tx: Db, orgId: string, domain: string, by: 'dns' | 'staff'): Promise<OrgDomainRow> {
    try {
      const row = await domainsRepo.markVerified(tx, orgId, domain, by, clock());
      if (!row) throw notFound('Domain');
      return row;
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`${domain} is verified for another organisation; it must remove it first.`, { domain });
      throw err;
    }
  }

  return {
    list: (orgId: string) => domainsRepo.list(db, orgId),
    verifiedOf: (orgId: string) => domainsRepo.verifiedOf(db, orgId),
    verifiedOwner: (domain: string) => domainsRepo.verifiedOwner(db, domain),

    async claim(ctx: WriteContext, input: string): Promise<OrgDomainRow> {
      const domain = normalizeDomain(input);
      return db
        .transaction()
        .execute(async (tx) => {
          const row = await domainsRepo.insert(tx, { orgId: ctx.orgId, domain, token: randomBytes(18).toString('base64url') });
          if (!row) throw conflict(`${domain} is already claimed by this organisation.`, { domain });
          await recordAudit(tx, ctx, { action: 'gateway.domain.claim', targetId: domain });
          return row;
        })
        .finally(deps.onChange);
    },

    async remove(ctx: WriteContext, input: string): Promise<void> {
      const domain = storedName(input);
      await db
        .transaction()
        .execute(async (tx) => {
          if (!(await domainsRepo.remove(tx, ctx.orgId, domain))) throw notFound('Domain');
          await recordAudit(tx, ctx, { action: 'gateway.domain.remove', targetId: domain });
        })
        .finally(deps.onChange);
    },

    /** Looks the TXT record up; verified when one of its values is this claim's. */
    async verify(ctx: WriteContext, input: string): Promise<OrgDomainRow> {
      const domain = storedName(input);
      const row = await require(ctx.orgId, domain);
      if (row.verified_at) return row;
      const expected = verificationRecord(row);
      let found: string[];
      try {
        found = await deps.lookupTxt(expected.name);
      } catch (err) {
        throw new AppError('SERVICE_UNAVAILABLE', `The DNS lookup of ${expected.name} failed; try again later.`, { internal: err });
      }
      if (!found.includes(expected.value)) {
        const ours = found.filter((v) => v.startsWith(VALUE_PREFIX));
        throw conflict(
          found.length === 0
            ? `No TXT record was found at ${expected.name}: add one with the value ${expected.value}.`
            : `The TXT records at ${expected.name} do not hold ${expected.value}.`,
          { record: expected.name, expected: expected.value, found: ours },
        );
      }
      return db
        .transaction()
        .execute(async (tx) => {
          const verified = await markVerified(tx, ctx.orgId, domain, 'dns');
          await recordAudit(tx, ctx, { action: 'gateway.domain.verify', targetId: domain });
          return verified;
        })
        .finally(deps.onChange);
    },

    /** Staff: marks a domain verified for the org (claiming it first when the org has not). */
    async staffVerify(ctx: { staffId: string; correlationId: string }, orgId: string, input: string): Promise<OrgDomainRow> {
      const domain = normalizeDomain(input);
      return db
        .transaction()
        .execute(async (tx) => {
          await domainsRepo.insert(tx, { orgId, domain, token: randomBytes(18).toString('base64url') });
          const row = await markVerified(tx, orgId, domain, 'staff');
          await recordAudit(
            tx,
            { orgId, correlationId: ctx.correlationId, actor: { type: 'staff', id: ctx.staffId } },
            { action: 'gateway.domain.verify', targetId: domain },
          );
          return row;
        })
        .finally(deps.onChange);
    },
  };
}

export type DomainService = ReturnType<typeof createDomainService>;
