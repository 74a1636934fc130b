import { describe, expect, it } from 'vitest';
import { planActions, type PlanAdvisoryEntry, type PlanFinding } from '../../src/remediation/plan.js';

const finding = (id: string, purl: string, more: Partial<PlanFinding> = {}): PlanFinding => ({
  id, rule_id: id, aliases: null, purl, package_name: null, package_version: null, severity: 'high', fixed_versions: null, in_kev: false, epss_probability: null, ...more,
});
/** One OSV affected[] entry (https://ossf.github.io/osv-schema/#affectedranges-field) as stored. */
const entry = (advisory: string, key: string, events: Record<string, string>[], aliases: string[] = []): PlanAdvisoryEntry => ({
  advisory_id: advisory, package_key: key, aliases: JSON.stringify(aliases), ranges: JSON.stringify([{ type: 'ECOSYSTEM', events }]), versions: '[]', withdrawn: null,
});
const noVia = () => [];

describe('the upgrade plan', () => {
  it('counts one vulnerability once across a scanner\'s CVE and the database\'s GHSA, and takes its KEV and EPSS', () => {
    const [action] = planActions([
      finding('GHSA-aaaa-bbbb-cccc', 'pkg:npm/lodash@4.17.15', { severity: 'critical', fixed_versions: '["4.17.21"]' }),
      finding('CVE-2021-23337', 'pkg:npm/lodash@4.17.15', { in_kev: 1, epss_probability: 0.42 }),
    ], [entry('GHSA-aaaa-bbbb-cccc', 'npm|lodash', [{ introduced: '0' }, { fixed: '4.17.21' }], ['CVE-2021-23337'])], [], noVia);
    expect(action).toMatchObject({ package: 'lodash', from: '4.17.15', to: '4.17.21', vulnerabilities: ['CVE-2021-23337'], severity: 'critical', kev: 1, epss: 0.42 });
  });

  it('without a safe version, takes the one fixing the most and says what remains; null when nothing is fixed anywhere', () => {
    const key = 'npm|left-pad';
    const [action] = planActions([finding('GHSA-1', 'pkg:npm/left-pad@1.0.0'), finding('GHSA-2', 'pkg:npm/left-pad@1.0.0')], [
      entry('GHSA-1', key, [{ introduced: '0' }, { fixed: '1.1.0' }]),
      // Never fixed.
      entry('GHSA-2', key, [{ introduced: '0' }]),
    ], [], noVia);
    expect(action).toMatchObject({ to: '1.1.0', vulnerabilities: ['GHSA-1'], remaining: ['GHSA-2'] });
    const [none] = planActions([finding('GHSA-2', 'pkg:npm/left-pad@1.0.0')], [entry('GHSA-2', key, [{ introduced: '0' }])], [], noVia);
    expect(none).toMatchObject({ to: null, vulnerabilities: [], remaining: ['GHSA-2'], severity: 'info' });
  });

  it('orders by the highest severity fixed, then KEV, then how many are fixed', () => {
    const actions = planActions([
      finding('A1', 'pkg:npm/a@1.0.0', { severity: 'medium', fixed_versions: '["2.0.0"]' }),
      finding('A2', 'pkg:npm/a@1.0.0', { severity: 'medium', fixed_versions: '["2.0.0"]' }),
      finding('B1', 'pkg:npm/b@1.0.0', { severity: 'medium', fixed_versions: '["2.0.0"]', in_kev: true }),
      finding('C1', 'pkg:npm/c@1.0.0', { severity: 'critical', fixed_versions: '["2.0.0"]' }),
    ], [], [], noVia);
    expect(actions.map((a) => a.package)).toEqual(['c', 'b', 'a']);
  });
});
