// Assignment rules: which template each person gets, for new messages and for replies
// (GET/PUT …/rules); `templateFor` is what every path that renders asks (render, and the gateway
// through render).
import type { Core } from '../core/core.ts';
import type { Module } from '../core/module.ts';
import { ruleRoutes } from './routes.ts';
import { createRuleService, type RuleService } from './service.ts';

export type { RuleService, TemplateChoice } from './service.ts';
export type { Compose, RuleFacts } from './match.ts';
export { whenSchema } from './schemas.ts';
export { matches } from './match.ts';

export function rulesModule(core: Core): Module<RuleService> {
  const rules = createRuleService({ db: core.db, caches: core.caches });
  return { name: 'rules', service: rules, api: ({ guards, billing }) => [ruleRoutes({ guards, billing, rules })] };
}
