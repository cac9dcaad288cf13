import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseRule, matches, type RuleFacts } from './match.ts';
import type { StoredRule } from '../store/schema.ts';

const ada: RuleFacts = {
  userId: '11111111-1111-4111-8111-111111111111',
  email: 'ada@Sales.Example.com',
  role: 'member',
  department: 'Sales ',
  attributes: { region: 'EMEA', team: 'north' },
  groups: ['field sales', 'everyone'],
};

test('each condition on its own: met and not met', () => {
  const cases: [string, Parameters<typeof matches>[0], boolean][] = [
    ['departments, case and outer spaces aside', { departments: ['Marketing', 'sales'] }, true],
    ['departments, none', { departments: ['Engineering'] }, false],
    ['roles', { roles: ['member', 'owner'] }, true],
    ['roles, none', { roles: ['admin'] }, false],
    ['userIds', { userIds: [ada.userId.toUpperCase()] }, true],
    ['userIds, none', { userIds: ['22222222-2222-4222-8222-222222222222'] }, false],
    ['groups by display name, without case', { groups: ['Field Sales'] }, true],
    ['groups, none', { groups: ['Finance'] }, false],
    ['attributes, every one', { attributes: { region: 'emea', team: 'north' } }, true],
    ['attributes, one differs', { attributes: { region: 'EMEA', team: 'south' } }, false],
    ['attributes, one absent', { attributes: { cost_centre: '42' } }, false],
    ["attributes named as an object's own properties, absent", { attributes: { constructor: 'x', hasownproperty: 'y' } }, false],
    ['emailDomains', { emailDomains: ['sales.example.com'] }, true],
    ['emailDomains with @', { emailDomains: ['@sales.example.com'] }, true],
    ['emailDomains, a parent domain is another domain', { emailDomains: ['example.com'] }, false],
    ['no condition matches everyone', {}, true],
  ];
  for (const [name, when, expected] of cases) assert.equal(matches(when, ada), expected, name);
});

test('every condition given must hold', () => {
  assert.equal(matches({ departments: ['Sales'], roles: ['member'], groups: ['everyone'] }, ada), true);
  assert.equal(matches({ departments: ['Sales'], roles: ['admin'] }, ada), false);
  assert.equal(matches({ emailDomains: ['sales.example.com'], attributes: { region: 'APAC' } }, ada), false);
});

test('the first rule met wins; replies take its reply template; none met is null', () => {
  const rules: StoredRule[] = [
    { ruleId: 'r1', name: 'Engineering', when: { departments: ['Engineering'] }, templateId: 't-eng' },
    { ruleId: 'r2', name: 'Sales', when: { departments: ['Sales'] }, templateId: 't-sales', replyTemplateId: 't-sales-reply' },
    { ruleId: 'r3', name: 'Everyone', when: {}, templateId: 't-all' },
  ];
  assert.deepEqual(chooseRule(rules, ada, 'new'), { ruleId: 'r2', templateId: 't-sales' });
  assert.deepEqual(chooseRule(rules, ada, 'reply'), { ruleId: 'r2', templateId: 't-sales-reply' });
  assert.deepEqual(chooseRule(rules, ada, 'forward'), { ruleId: 'r2', templateId: 't-sales-reply' });
  assert.deepEqual(chooseRule(rules, { ...ada, department: 'Legal' }, 'reply'), { ruleId: 'r3', templateId: 't-all' }, 'no reply template: the new one');
  assert.equal(chooseRule(rules.slice(0, 2), { ...ada, department: 'Legal' }, 'new'), null);
});
