/** CycloneDX 1.5 and 1.6 `vulnerabilities[].analysis.justification`. */
export const CYCLONEDX_JUSTIFICATIONS = [
  'code_not_present', 'code_not_reachable', 'requires_configuration', 'requires_dependency', 'requires_environment',
  'protected_by_compiler', 'protected_at_runtime', 'protected_at_perimeter', 'protected_by_mitigating_control',
] as const;

/** OpenVEX 0.2.0 justifications: CISA's VEX Status Justifications. */
export const OPENVEX_JUSTIFICATIONS = [
  'component_not_present', 'vulnerable_code_not_present', 'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary', 'inline_mitigations_already_exist',
] as const;

type CycloneDxJustification = (typeof CYCLONEDX_JUSTIFICATIONS)[number];
type OpenVexJustification = (typeof OPENVEX_JUSTIFICATIONS)[number];
export type VexFormat = 'openvex' | 'cyclonedx';

/**
 * CycloneDX is the finer of the two, so going to OpenVEX only merges. The requires_* values say the
 * exploit needs something absent: a configuration or an environment the attacker cannot bring about
 * (cannot be controlled by adversary), but a dependency that is not in the product is the component
 * itself not being present. The protected_* values are all controls that stop the exploit: inline
 * mitigations.
 */
const OPENVEX_OF: Record<CycloneDxJustification, OpenVexJustification> = {
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

/**
 * Going to CycloneDX has to pick one of several. A component that is not present has no code present
 * either (CycloneDX has no value for the component itself). Code an adversary cannot control is
 * requires_environment: what lets an attacker reach it is not there, and it goes back to the same
 * OpenVEX value (protected_at_perimeter would name a perimeter nobody stated). Inline mitigations are
 * protected_by_mitigating_control, the one that does not say where the protection sits.
 */
const CYCLONEDX_OF: Record<OpenVexJustification, CycloneDxJustification> = {
  component_not_present: 'code_not_present',
  vulnerable_code_not_present: 'code_not_present',
  vulnerable_code_not_in_execute_path: 'code_not_reachable',
  vulnerable_code_cannot_be_controlled_by_adversary: 'requires_environment',
  inline_mitigations_already_exist: 'protected_by_mitigating_control',
};

const isCycloneDx = (value: string): value is CycloneDxJustification => Object.hasOwn(OPENVEX_OF, value);
const isOpenVex = (value: string): value is OpenVexJustification => Object.hasOwn(CYCLONEDX_OF, value);

/**
 * A justification as either format states it, in `format`'s words. When it had to be mapped,
 * `stated` says what it was ("CycloneDX justification: code_not_reachable."), for the statement's
 * words, since the mapping may merge. Undefined when it is neither format's.
 */
export function justificationIn(format: VexFormat, said: string): { justification: string; stated: string | null } | undefined {
  if (format === 'openvex') {
    if (isOpenVex(said)) return { justification: said, stated: null };
    if (isCycloneDx(said)) return { justification: OPENVEX_OF[said], stated: `CycloneDX justification: ${said}.` };
  } else {
    if (isCycloneDx(said)) return { justification: said, stated: null };
    if (isOpenVex(said)) return { justification: CYCLONEDX_OF[said], stated: `OpenVEX justification: ${said}.` };
  }
  return undefined;
}
