import { describe, expect, it } from 'vitest';
import { evaluateGate, type GateFacts, type Tally } from '../../src/gates/evaluate.js';
import type { PolicyDocument } from '../../src/gates/schema.js';
import type { Severity } from '../../src/domain/scan.js';

const none = (): Tally => ({ count: 0, examples: [] });
const tally = (count: number, label = 'finding'): Tally => ({ count, examples: Array.from({ length: Math.min(count, 7) }, (_, i) => `${label} ${i + 1}`) });
const perSeverity = (values: Partial<Record<Severity, Tally>> = {}): Record<Severity, Tally> =>
  ({ critical: none(), high: none(), medium: none(), low: none(), info: none(), ...values });

function facts(overrides: Partial<GateFacts> = {}): GateFacts {
  return { open: perSeverity(), introduced: perSeverity(), overdue: {}, vulnerabilities: [], components: [], ...overrides };
}

type Case = [name: string, policy: PolicyDocument, facts: GateFacts, status: 'pass' | 'warn' | 'fail', rules: string[]];

const CASES: Case[] = [
  ['an empty policy passes anything', {}, facts({ open: perSeverity({ critical: tally(50) }), introduced: perSeverity({ critical: tally(3) }) }), 'pass', []],
  ['max_open: at the limit passes', { max_open: { critical: 0, high: 10 } }, facts({ open: perSeverity({ high: tally(10) }) }), 'pass', []],
  ['max_open: over the limit fails', { max_open: { critical: 0, high: 10 } }, facts({ open: perSeverity({ critical: tally(1) }) }), 'fail', ['max_open']],
  ['max_open: each severity over its limit is a violation', { max_open: { critical: 0, high: 1 } }, facts({ open: perSeverity({ critical: tally(2), high: tally(2) }) }), 'fail', ['max_open', 'max_open']],
  ['max_open: a severity left out has no limit', { max_open: { critical: 0 } }, facts({ open: perSeverity({ low: tally(1000) }) }), 'pass', []],
  ['fail_on_new: a new finding of the threshold fails', { fail_on_new: 'high' }, facts({ introduced: perSeverity({ high: tally(1) }) }), 'fail', ['fail_on_new']],
  ['fail_on_new: a worse one fails', { fail_on_new: 'high' }, facts({ introduced: perSeverity({ critical: tally(1) }) }), 'fail', ['fail_on_new']],
  ['fail_on_new: a milder one passes', { fail_on_new: 'high' }, facts({ introduced: perSeverity({ medium: tally(4) }) }), 'pass', []],
  ['fail_on_new: judging the repository, nothing is new', { fail_on_new: 'info' }, facts({ introduced: null, open: perSeverity({ critical: tally(1) }) }), 'pass', []],
  ['fail_on_new: null turns it off', { fail_on_new: null }, facts({ introduced: perSeverity({ critical: tally(1) }) }), 'pass', []],
  ['fail_on_kev: a listed vulnerability fails', { fail_on_kev: true }, facts({ vulnerabilities: [{ label: 'CVE-2021-44228 in log4j-core@2.14.1', severity: 'critical', kev: true }] }), 'fail', ['fail_on_kev']],
  ['fail_on_kev: unlisted vulnerabilities pass', { fail_on_kev: true }, facts({ vulnerabilities: [{ label: 'CVE-2020-1', severity: 'critical', kev: false }] }), 'pass', []],
  ['fail_on_kev: false ignores listed ones', { fail_on_kev: false }, facts({ vulnerabilities: [{ label: 'CVE-2021-44228', severity: 'critical', kev: true }] }), 'pass', []],
  ['max_age_days: overdue findings fail', { max_age_days: { critical: 7 } }, facts({ overdue: { critical: tally(2) } }), 'fail', ['max_age_days']],
  ['max_age_days: none overdue passes', { max_age_days: { critical: 7 } }, facts({ overdue: { critical: none() } }), 'pass', []],
  ['licenses: a denied licence fails', { licenses: { deny: ['GPL-3.0-or-later'] } }, facts({ components: [{ label: 'left-pad@1', licenses: ['MIT AND GPL-3.0-or-later'] }] }), 'fail', ['licenses.deny']],
  ['licenses: a choice passes', { licenses: { deny: ['GPL-3.0-or-later'] } }, facts({ components: [{ label: 'left-pad@1', licenses: ['MIT OR GPL-3.0-or-later'] }] }), 'pass', []],
  ['licenses: outside the allow list fails', { licenses: { allow: ['MIT'] } }, facts({ components: [{ label: 'x@1', licenses: ['ISC'] }] }), 'fail', ['licenses.allow']],
  ['licenses: unknown warns by default', { licenses: { deny: ['GPL-3.0-only'] } }, facts({ components: [{ label: 'x@1', licenses: ['NOASSERTION'] }] }), 'warn', ['licenses.unknown']],
  ['licenses: unknown may fail', { licenses: { deny: [], unknown: 'fail' } }, facts({ components: [{ label: 'x@1', licenses: ['LicenseRef-x'] }] }), 'fail', ['licenses.unknown']],
  ['licenses: no licences section judges no licences', {}, facts({ components: [{ label: 'x@1', licenses: ['GPL-3.0-only'] }] }), 'pass', []],
  ['a warning beside a failure still fails', { max_open: { critical: 0 }, licenses: {} }, facts({ open: perSeverity({ critical: tally(1) }), components: [{ label: 'x@1', licenses: [] }] }), 'fail', ['max_open', 'licenses.unknown']],
];

describe('the gate', () => {
  it.each(CASES)('%s', (_name, policy, input, status, rules) => {
    const gate = evaluateGate(policy, input);
    expect(gate.status).toBe(status);
    expect(gate.violations.map((v) => v.rule)).toEqual(rules);
  });

  it('counts and names what broke a rule, with at most five examples', () => {
    const gate = evaluateGate({ max_open: { critical: 0 }, fail_on_new: 'high' }, facts({
      open: perSeverity({ critical: tally(7, 'open') }),
      introduced: perSeverity({ critical: tally(1, 'new critical'), high: tally(2, 'new high'), low: tally(9) }),
    }));
    expect(gate.violations).toEqual([
      { rule: 'max_open', level: 'fail', message: '7 open critical findings; the policy allows 0.', count: 7, examples: ['open 1', 'open 2', 'open 3', 'open 4', 'open 5'] },
      {
        rule: 'fail_on_new', level: 'fail', count: 3, examples: ['new critical 1', 'new high 1', 'new high 2'],
        message: 'This upload brought 3 new or reopened findings of severity high or worse (1 critical, 2 high).',
      },
    ]);
  });

  it('lists the components a licence rule caught with their licences', () => {
    const gate = evaluateGate({ licenses: { deny: ['AGPL-3.0-only'], unknown: 'warn' } }, facts({
      components: [
        { label: 'pkg:npm/a@1', licenses: ['AGPL-3.0-only'] },
        { label: 'pkg:npm/b@1', licenses: ['MIT'] },
        { label: 'pkg:npm/c@1', licenses: [] },
      ],
    }));
    expect(gate.status).toBe('fail');
    expect(gate.violations.map((v) => [v.rule, v.level, v.count, v.examples])).toEqual([
      ['licenses.deny', 'fail', 1, ['pkg:npm/a@1 (AGPL-3.0-only)']],
      ['licenses.unknown', 'warn', 1, ['pkg:npm/c@1 (no licence)']],
    ]);
  });
});
