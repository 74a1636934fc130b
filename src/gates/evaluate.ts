import type { Severity } from '../domain/scan.js';
import { SEVERITY_RANK } from '../domain/severity.js';
import { licenseJudge, type LicenseVerdict } from './licenses.js';
import type { Gate, Policy, Violation } from './types.js';

const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];
const EXAMPLES = 5;

/** How many of something there are, with a few named for the reader. */
export interface Tally {
  count: number;
  examples: string[];
}

export interface FindingFact {
  label: string;
  severity: Severity;
  /** In the KEV catalogue, as advisories report it. */
  kev: boolean;
}

export interface ComponentFact {
  label: string;
  licenses: string[];
}

/**
 * What a gate judges, gathered by the store for exactly the rules the policy has. Counts come
 * aggregated because a repository may hold a million findings; the rest is small enough to list.
 */
export interface GateFacts {
  open: Record<Severity, Tally>;
  /** New and reopened findings of the upload judged, per severity; null when judging the repository as it stands. */
  introduced: Record<Severity, Tally> | null;
  /** A pull request's base branch: `introduced` then counts what is not open there, not what changed since its last push. */
  introducedAgainst?: string;
  /**
   * Judging the repository: what the latest upload of each analysis of its default branch brought, as
   * that upload's gate counted it, newest first; fail_on_new judges each again by the policy as it is.
   */
  latestUploads?: UploadIntroduced[];
  /** Open findings older than the policy's max_age_days for their severity. */
  overdue: Partial<Record<Severity, Tally>>;
  /** Open findings that advisories flag (their `kev` says whether the KEV catalogue lists them). */
  vulnerabilities: FindingFact[];
  components: ComponentFact[];
}

export interface UploadIntroduced {
  uploadId: string;
  introduced: Record<Severity, Tally>;
}

/** The gate: the policy applied to the facts. Pure, so every rule is tested without a database. */
export function evaluateGate(policy: Policy, facts: GateFacts): Gate {
  const violations: Violation[] = [
    ...maxOpen(policy, facts),
    ...failOnNew(policy, facts),
    ...failOnKev(policy, facts),
    ...maxAge(policy, facts),
    ...licenses(policy, facts),
  ];
  const status = violations.some((v) => v.level === 'fail') ? 'fail' : violations.length > 0 ? 'warn' : 'pass';
  return { status, violations };
}

function maxOpen(policy: Policy, facts: GateFacts): Violation[] {
  return SEVERITIES.flatMap((severity) => {
    const limit = policy.max_open?.[severity];
    const open = facts.open[severity];
    if (limit === undefined || open.count <= limit) return [];
    return [fail('max_open', `${open.count} open ${severity} finding${plural(open.count)}; the policy allows ${limit}.`, open)];
  });
}

function failOnNew(policy: Policy, facts: GateFacts): Violation[] {
  const threshold = policy.fail_on_new;
  if (!threshold) return [];
  if (facts.introduced) {
    return brought(threshold, facts.introduced, facts.introducedAgainst === undefined
      ? (count) => `This upload brought ${count} new or reopened finding${plural(count)}`
      : (count) => `This pull request brings ${count} finding${plural(count)} not open on ${facts.introducedAgainst}`);
  }
  return (facts.latestUploads ?? []).flatMap((upload) => broughtBy(threshold, upload));
}

/**
 * The upload a repository's fail_on_new verdict is about: the newest of the latest uploads whose
 * findings fail it, else the newest of them; null when the default branch has none.
 */
export function judgedUpload(policy: Policy, latest: readonly UploadIntroduced[]): string | null {
  const threshold = policy.fail_on_new;
  const failing = threshold ? latest.find((upload) => broughtBy(threshold, upload).length > 0) : undefined;
  return (failing ?? latest[0])?.uploadId ?? null;
}

function broughtBy(threshold: Severity, { uploadId, introduced }: UploadIntroduced): Violation[] {
  return brought(threshold, introduced, (count) => `Upload ${uploadId} brought ${count} new or reopened finding${plural(count)}`);
}

function brought(threshold: Severity, introduced: Record<Severity, Tally>, what: (count: number) => string): Violation[] {
  const worse = SEVERITIES.filter((s) => SEVERITY_RANK[s] >= SEVERITY_RANK[threshold]);
  const count = worse.reduce((sum, s) => sum + introduced[s].count, 0);
  if (count === 0) return [];
  const bySeverity = worse.filter((s) => introduced[s].count > 0).map((s) => `${introduced[s].count} ${s}`).join(', ');
  return [fail('fail_on_new', `${what(count)} of severity ${threshold} or worse (${bySeverity}).`,
    { count, examples: worse.flatMap((s) => introduced[s].examples).slice(0, EXAMPLES) })];
}

function failOnKev(policy: Policy, facts: GateFacts): Violation[] {
  if (!policy.fail_on_kev) return [];
  const listed = facts.vulnerabilities.filter((v) => v.kev);
  if (listed.length === 0) return [];
  return [fail('fail_on_kev', `${listed.length} open vulnerabilit${listed.length === 1 ? 'y is' : 'ies are'} in the KEV catalogue (known to be exploited).`,
    { count: listed.length, examples: listed.slice(0, EXAMPLES).map((v) => v.label) })];
}

function maxAge(policy: Policy, facts: GateFacts): Violation[] {
  return SEVERITIES.flatMap((severity) => {
    const days = policy.max_age_days?.[severity];
    const overdue = facts.overdue[severity];
    if (days === undefined || !overdue || overdue.count === 0) return [];
    return [fail('max_age_days', `${overdue.count} ${severity} finding${plural(overdue.count)} open longer than ${days} day${plural(days)}.`, overdue)];
  });
}

function licenses(policy: Policy, facts: GateFacts): Violation[] {
  const rules = policy.licenses;
  if (!rules) return [];
  const judge = licenseJudge({ deny: rules.deny ?? [], allow: rules.allow ?? null });
  const byVerdict = new Map<LicenseVerdict, string[]>();
  for (const component of facts.components) {
    const verdict = judge.judge(component.licenses);
    if (verdict === 'allowed') continue;
    const label = `${component.label} (${component.licenses.join(' AND ') || 'no licence'})`;
    byVerdict.set(verdict, [...(byVerdict.get(verdict) ?? []), label]);
  }
  const out: Violation[] = [];
  const denied = byVerdict.get('denied') ?? [];
  if (denied.length) out.push(fail('licenses.deny', `${denied.length} component${plural(denied.length)} can only be used under a denied licence.`, listed(denied)));
  const notAllowed = byVerdict.get('not_allowed') ?? [];
  if (notAllowed.length) out.push(fail('licenses.allow', `${notAllowed.length} component${plural(notAllowed.length)} cannot be used under the allowed licences alone.`, listed(notAllowed)));
  const unknown = byVerdict.get('unknown') ?? [];
  if (unknown.length) {
    out.push({
      rule: 'licenses.unknown', level: rules.unknown === 'fail' ? 'fail' : 'warn',
      message: `${unknown.length} component${plural(unknown.length)} ha${unknown.length === 1 ? 's' : 've'} a licence no list can judge (missing, NOASSERTION, unparsable, too long or LicenseRef).`,
      ...listed(unknown),
    });
  }
  return out;
}

function fail(rule: string, message: string, tally: Tally): Violation {
  return { rule, level: 'fail', message, count: tally.count, examples: tally.examples.slice(0, EXAMPLES) };
}

function listed(labels: string[]): Tally {
  return { count: labels.length, examples: labels.slice(0, EXAMPLES) };
}

function plural(n: number): string {
  return n === 1 ? '' : 's';
}
