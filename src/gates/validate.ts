import type { FieldError } from '../problem.js';
import { licenseEntryProblem } from './licenses.js';
import type { Policy, RepoPolicy } from './types.js';

/** What the schema cannot say: each deny and allow entry must be one SPDX licence. */
export function policyProblems(policy: Policy): FieldError[] {
  const errors: FieldError[] = [];
  for (const list of ['deny', 'allow'] as const) {
    (policy.licenses?.[list] ?? []).forEach((entry, i) => {
      const problem = licenseEntryProblem(entry);
      if (problem) errors.push({ path: `/licenses/${list}/${i}`, message: problem });
    });
  }
  return errors;
}

/** A repository either inherits (and then states no rules) or has a policy of its own. */
export function repoPolicyProblems(document: RepoPolicy): FieldError[] {
  const { inherit, ...rules } = document;
  if (inherit === false || inherit === undefined) return policyProblems(rules);
  return Object.keys(rules).map((field) => ({ path: `/${field}`, message: 'must be absent when inherit is true' }));
}
