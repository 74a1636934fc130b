import { packageOf } from '../vex/match.js';
import { SEVERITY_RANK } from '../domain/severity.js';
import { SEVERITIES, type Severity } from '../domain/scan.js';

/** A finding that names a package: what grouping looks at. */
export interface VulnerabilityFinding {
  id: string;
  rule_id: string;
  aliases: string | null;
  purl: string;
  severity: string;
  state: string;
  tool: string;
}

/** One vulnerability in one package, however many findings and tools name it. */
export interface VulnerabilityGroup {
  /** Every name it goes by here: rule ids, their aliases and the advisory database's. */
  names: string[];
  /** The package: its purl without version. */
  package: string;
  severity: Severity;
  state: 'open' | 'dismissed' | 'fixed';
  tools: string[];
  finding_ids: string[];
}

/**
 * Groups findings that name the same vulnerability in the same package: names are linked when a
 * finding gives them together (its rule id and aliases) or the advisory database does (`known`:
 * pairs of an advisory id and an alias), case aside, so CVE-2021-44228 from one scanner and
 * GHSA-jfh8-c2jp-5v3q from another are one vulnerability of log4j-core. A group is as severe as its
 * most severe finding, open when any finding is, else dismissed when any is.
 */
export function groupVulnerabilities(findings: VulnerabilityFinding[], known: [string, string][]): VulnerabilityGroup[] {
  const find = linkedNames(findings, known);
  const namesOf = (f: VulnerabilityFinding) => [f.rule_id, ...(f.aliases ? (JSON.parse(f.aliases) as string[]) : [])];
  const groups = new Map<string, VulnerabilityGroup & { rank: number; names_: Set<string>; tools_: Set<string> }>();
  for (const f of findings) {
    const pkg = packageOf(f.purl)?.product ?? f.purl;
    const key = `${pkg}\n${find(f.rule_id.toUpperCase())}`;
    const severity = (SEVERITY_RANK[f.severity as Severity] === undefined ? 'info' : f.severity) as Severity;
    let group = groups.get(key);
    if (!group) {
      group = { names: [], package: pkg, severity, state: 'fixed', tools: [], finding_ids: [], rank: -1, names_: new Set(), tools_: new Set() };
      groups.set(key, group);
    }
    for (const name of namesOf(f)) group.names_.add(name);
    group.tools_.add(f.tool);
    group.finding_ids.push(f.id);
    if (SEVERITY_RANK[severity] > group.rank) [group.rank, group.severity] = [SEVERITY_RANK[severity], severity];
    if (f.state === 'open' || (f.state === 'dismissed' && group.state === 'fixed')) group.state = f.state;
  }
  // The advisory database's names of a group's vulnerability belong to it too.
  const byRoot = new Map<string, string[]>();
  for (const [a, b] of known) for (const name of [a, b]) byRoot.set(find(name.toUpperCase()), [...(byRoot.get(find(name.toUpperCase())) ?? []), name]);
  return [...groups.entries()].map(([key, { rank: _rank, names_, tools_, ...group }]) => {
    for (const name of byRoot.get(key.slice(key.indexOf('\n') + 1)) ?? []) names_.add(name);
    return { ...group, names: [...names_].sort(), tools: [...tools_].sort() };
  }).sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] || a.package.localeCompare(b.package) || a.names[0]!.localeCompare(b.names[0]!));
}

/**
 * Open vulnerabilities by severity: the groups `groupVulnerabilities` would make of these open
 * findings, counted without building their names and tools. Every upload of an SBOM works them out
 * for the ref's totals, for as many findings as the SBOM has vulnerable packages.
 */
export function openVulnerabilityCounts(open: VulnerabilityFinding[], known: [string, string][]): Record<Severity, number> {
  const find = linkedNames(open, known);
  const packages = new Map<string, string>();
  const rankOf = new Map<string, number>();
  for (const f of open) {
    let pkg = packages.get(f.purl);
    if (pkg === undefined) {
      pkg = packageOf(f.purl)?.product ?? f.purl;
      packages.set(f.purl, pkg);
    }
    const key = `${pkg}\n${find(f.rule_id.toUpperCase())}`;
    const rank = SEVERITY_RANK[f.severity as Severity] ?? SEVERITY_RANK.info;
    if (rank > (rankOf.get(key) ?? -1)) rankOf.set(key, rank);
  }
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const rank of rankOf.values()) counts[SEVERITIES.find((s) => SEVERITY_RANK[s] === rank)!]++;
  return counts;
}

/**
 * Links names that name one vulnerability: a finding gives them together (its rule id and
 * aliases), or the advisory database does (`known`), case aside. Returns the lookup of a name's
 * (upper-cased) representative.
 */
function linkedNames(findings: VulnerabilityFinding[], known: [string, string][]): (upperName: string) => string {
  const parent = new Map<string, string>();
  const find = (name: string): string => {
    let root = name;
    for (let up = parent.get(root); up !== undefined && up !== root; up = parent.get(root)) root = up;
    for (let at = name; at !== root; ) {
      const next = parent.get(at)!;
      parent.set(at, root);
      at = next;
    }
    return root;
  };
  const union = (a: string, b: string) => {
    const [ra, rb] = [find(a.toUpperCase()), find(b.toUpperCase())];
    if (!parent.has(ra)) parent.set(ra, ra);
    if (!parent.has(rb)) parent.set(rb, rb);
    if (ra !== rb) parent.set(rb < ra ? ra : rb, rb < ra ? rb : ra);
  };
  for (const f of findings) {
    if (f.aliases) for (const alias of JSON.parse(f.aliases) as string[]) union(f.rule_id, alias);
  }
  for (const [a, b] of known) union(a, b);
  return find;
}
