import { describe, expect, it } from 'vitest';
import { CYCLONEDX_JUSTIFICATIONS, justificationIn, OPENVEX_JUSTIFICATIONS } from '../../src/vex/justifications.js';
import { presentCycloneDxVex, presentOpenVex } from '../../src/vex/presenter.js';

const TO_OPENVEX = {
  code_not_present: 'vulnerable_code_not_present',
  code_not_reachable: 'vulnerable_code_not_in_execute_path',
  requires_configuration: 'vulnerable_code_cannot_be_controlled_by_adversary',
  requires_dependency: 'component_not_present',
  requires_environment: 'vulnerable_code_cannot_be_controlled_by_adversary',
  protected_by_compiler: 'inline_mitigations_already_exist',
  protected_at_runtime: 'inline_mitigations_already_exist',
  protected_at_perimeter: 'inline_mitigations_already_exist',
  protected_by_mitigating_control: 'inline_mitigations_already_exist',
};

const TO_CYCLONEDX = {
  component_not_present: 'code_not_present',
  vulnerable_code_not_present: 'code_not_present',
  vulnerable_code_not_in_execute_path: 'code_not_reachable',
  vulnerable_code_cannot_be_controlled_by_adversary: 'requires_environment',
  inline_mitigations_already_exist: 'protected_by_mitigating_control',
};

describe('VEX justifications across formats', () => {
  it('names every value of both specifications', () => {
    expect([...CYCLONEDX_JUSTIFICATIONS].sort()).toEqual(Object.keys(TO_OPENVEX).sort());
    expect([...OPENVEX_JUSTIFICATIONS].sort()).toEqual(Object.keys(TO_CYCLONEDX).sort());
  });

  it.each(Object.entries(TO_OPENVEX))('CycloneDX %s is OpenVEX %s, saying what it was', (cyclonedx, openvex) => {
    expect(justificationIn('openvex', cyclonedx)).toEqual({ justification: openvex, stated: `CycloneDX justification: ${cyclonedx}.` });
    expect(justificationIn('cyclonedx', cyclonedx)).toEqual({ justification: cyclonedx, stated: null });
  });

  it.each(Object.entries(TO_CYCLONEDX))('OpenVEX %s is CycloneDX %s, saying what it was', (openvex, cyclonedx) => {
    expect(justificationIn('cyclonedx', openvex)).toEqual({ justification: cyclonedx, stated: `OpenVEX justification: ${openvex}.` });
    expect(justificationIn('openvex', openvex)).toEqual({ justification: openvex, stated: null });
  });

  it('maps every value onto one of the other format', () => {
    for (const value of CYCLONEDX_JUSTIFICATIONS) expect(OPENVEX_JUSTIFICATIONS).toContain(justificationIn('openvex', value)!.justification);
    for (const value of OPENVEX_JUSTIFICATIONS) expect(CYCLONEDX_JUSTIFICATIONS).toContain(justificationIn('cyclonedx', value)!.justification);
  });

  it('knows nothing else, in any case or from an object prototype', () => {
    for (const said of ['Code_Not_Reachable', 'not_affected', '', 'constructor', 'toString', '__proto__']) {
      expect(justificationIn('openvex', said)).toBeUndefined();
      expect(justificationIn('cyclonedx', said)).toBeUndefined();
    }
  });

  it("reads a person's triage comment the same way in both exports", () => {
    const row = (rule_id: string, dismissed_reason: string, dismissed_comment: string | null) => ({
      rule_id, purl: 'pkg:npm/left-pad@1.0.0', aliases: null, state: 'dismissed', dismissed_reason, dismissed_comment,
    });
    const rows = [row('CVE-1', 'not_affected', 'requires_dependency: only the dev build pulls it in'), row('CVE-2', 'false_positive', null)];
    const openvex = Object.fromEntries(presentOpenVex('app', rows, '2024-01-01T00:00:00Z').statements.map((s) => [s.vulnerability.name, s]));
    expect(openvex['CVE-1']).toMatchObject({
      status: 'not_affected', justification: 'component_not_present', impact_statement: 'CycloneDX justification: requires_dependency. only the dev build pulls it in',
    });
    expect(openvex['CVE-2']).toMatchObject({ status: 'not_affected', impact_statement: 'Dismissed as a false positive.' });
    const cyclonedx = Object.fromEntries(presentCycloneDxVex(rows, '2024-01-01T00:00:00Z').vulnerabilities.map((v) => [v.id, v.analysis]));
    expect(cyclonedx['CVE-1']).toEqual({ state: 'not_affected', justification: 'requires_dependency', detail: 'only the dev build pulls it in' });
    expect(cyclonedx['CVE-2']).toEqual({ state: 'false_positive' });
  });
});
