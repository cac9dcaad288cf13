// Assignment rules (docs/api.md, "Rules"): the org's ordered list, and `templateFor`, the one
// answer to "which template does this person get for this message", asked by every path that
// renders for a user (render/service.ts's render: the render and signature routes, the add-in,
// pushes through src/deployments/target.ts; the SMTP gateway calls it the same way).
import { randomUUID } from 'node:crypto';
import type { Caches } from '../cache/namespaces.ts';
import { recordAudit, type WriteContext } from '../audit/record.ts';
import { AppError, badRequest } from '../kernel/errors.ts';
import type { Db } from '../store/db.ts';
import { MAX_VERSION } from '../store/conditional.ts';
import { rulesRepo } from '../store/repositories/rules.ts';
import type { RuleWhen, StoredRule, UserRow } from '../store/schema.ts';
import { chooseRule, needsGroups, type Compose, type RuleFacts } from './match.ts';

export interface RuleInput {
  ruleId?: string | undefined;
  name: string;
  when: RuleWhen;
  templateId: string;
  replyTemplateId?: string | undefined;
}

export interface RuleList {
  rules: StoredRule[];
  version: number;
}

/** The rule that chose a template, or null when the org's default applies (no rule matched). */
export interface TemplateChoice {
  templateId: string | null;
  ruleId: string | null;
}

const NO_RULE: TemplateChoice = Object.freeze({ templateId: null, ruleId: null });

type RuleUser = Pick<UserRow, 'id' | 'org_id' | 'email' | 'role' | 'department' | 'attributes'>;

function factsWith(user: RuleUser, groups: string[]): RuleFacts {
  return { userId: user.id, email: user.email, role: user.role, department: user.department, attributes: user.attributes ?? {}, groups };
}

export function createRuleService(deps: { db: Db; caches: Pick<Caches, 'rules' | 'userGroups' | 'invalidate'> }) {
  const { db, caches } = deps;

  const listOf = async (orgId: string): Promise<RuleList> => (await caches.rules.get(orgId, () => rulesRepo.find(db, orgId))) ?? { rules: [], version: 0 };

  async function groupsOf(orgId: string, userId: string): Promise<string[]> {
    const byUser = await caches.userGroups.get(orgId, () => rulesRepo.groupNamesByUser(db, orgId));
    return byUser?.get(userId) ?? [];
  }

  /** Every template a rule names must be a live template of the org (the field named when not). */
  async function checkTemplates(orgId: string, rules: RuleInput[]): Promise<void> {
    const named = rules.flatMap((r, i) => [
      { id: r.templateId, field: `body.${i}.templateId` },
      ...(r.replyTemplateId ? [{ id: r.replyTemplateId, field: `body.${i}.replyTemplateId` }] : []),
    ]);
    const live = await rulesRepo.liveTemplateIds(db, orgId, [...new Set(named.map((n) => n.id))]);
    const missing = named.find((n) => !live.has(n.id));
    if (missing) throw badRequest(`${missing.field}: not one of the organisation's templates.`, { field: missing.field });
  }

  /**
   * A ruleId sent back must be one of the org's current rules: the id names a rule (the signature
   * route answers it, so a log or a report can say which rule chose a template), and one made up or
   * copied from another org would name a rule this org never had. New rules leave it out. Read
   * under the row's lock, so a concurrent replace cannot remove a rule between check and write.
   */
  async function checkKept(tx: Db, orgId: string, input: RuleInput[]): Promise<void> {
    if (!input.some((r) => r.ruleId)) return;
    const current = new Set((await rulesRepo.find(tx, orgId, { lock: true })).rules.map((r) => r.ruleId));
    const i = input.findIndex((r) => r.ruleId && !current.has(r.ruleId.toLowerCase()));
    if (i >= 0) {
      const field = `body.${i}.ruleId`;
      throw badRequest(`${field}: not one of the organisation's current rules. Send back a ruleId that GET …/rules answered; leave it out for a new rule.`, {
        field,
      });
    }
  }

  /** What conditions look at, of this user (their groups read only when asked: a cached query per org). */
  async function factsOf(user: RuleUser, withGroups: boolean): Promise<RuleFacts> {
    return factsWith(user, withGroups ? await groupsOf(user.org_id, user.id) : []);
  }

  /** `factsOf`'s answer from the caches, without waiting; undefined when the groups it needs are not held. */
  function cachedFactsOf(user: RuleUser, withGroups: boolean): RuleFacts | undefined {
    if (!withGroups) return factsWith(user, []);
    const byUser = caches.userGroups.peek(user.org_id);
    if (byUser === undefined) return undefined;
    return factsWith(user, byUser?.get(user.id) ?? []);
  }

  return {
    list: listOf,
    factsOf,

    /** Replaces the whole list (`If-Match` naming its version, or last write wins); kept ruleIds stay. */
    async replace(ctx: WriteContext, input: RuleInput[], ifMatch: number | undefined): Promise<RuleList> {
      if (ifMatch !== undefined && !(ifMatch <= MAX_VERSION)) throw new AppError('PRECONDITION_FAILED', 'If-Match does not match the current rules.');
      const seen = new Set<string>();
      input.forEach((r, i) => {
        if (r.ruleId && seen.has(r.ruleId.toLowerCase())) throw badRequest(`body.${i}.ruleId: appears twice in the list.`, { field: `body.${i}.ruleId` });
        if (r.ruleId) seen.add(r.ruleId.toLowerCase());
      });
      await checkTemplates(ctx.orgId, input);
      const rules: StoredRule[] = input.map((r) => ({
        ruleId: r.ruleId?.toLowerCase() ?? randomUUID(),
        name: r.name,
        when: r.when,
        templateId: r.templateId,
        ...(r.replyTemplateId ? { replyTemplateId: r.replyTemplateId } : {}),
      }));
      const saved = await db.transaction().execute(async (tx) => {
        await checkKept(tx, ctx.orgId, input);
        const row = await rulesRepo.replace(tx, ctx.orgId, rules, ifMatch);
        if (!row) {
          const current = await rulesRepo.find(tx, ctx.orgId);
          throw new AppError('PRECONDITION_FAILED', 'If-Match does not match the current rules.', { details: { currentVersion: current.version } });
        }
        await recordAudit(tx, ctx, { action: 'rules.replace', targetId: ctx.orgId, changes: ['rules'] });
        return row;
      });
      caches.invalidate.rulesChanged(ctx.orgId);
      return saved;
    },

    /**
     * The template this user gets for this kind of message: the first rule the user meets (its
     * `replyTemplateId` for replies and forwards, when it has one), else null: the org's default.
     */
    async templateFor(user: RuleUser, compose: Compose = 'new'): Promise<TemplateChoice> {
      const { rules } = await listOf(user.org_id);
      if (rules.length === 0) return NO_RULE;
      const chosen = chooseRule(rules, await factsOf(user, needsGroups(rules)), compose);
      return chosen ?? NO_RULE;
    },

    /**
     * `templateFor`'s answer from what the caches hold, without waiting (a warm render's path:
     * render/service.ts); undefined when the rules or the groups they need are not held.
     */
    cachedTemplateFor(user: RuleUser, compose: Compose = 'new'): TemplateChoice | undefined {
      const list = caches.rules.peek(user.org_id);
      if (list === undefined) return undefined;
      const rules = list?.rules ?? [];
      if (rules.length === 0) return NO_RULE;
      const facts = cachedFactsOf(user, needsGroups(rules));
      if (!facts) return undefined;
      return chooseRule(rules, facts, compose) ?? NO_RULE;
    },

    cachedFactsOf,
  };
}

export type RuleService = ReturnType<typeof createRuleService>;
