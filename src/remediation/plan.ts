import { matchWith } from '../advisories/match.js';
import type { AffectedRange } from '../advisories/osv.js';
import { packageOfPurl, versionScheme } from '../domain/ecosystems/index.js';
import type { VersionScheme } from '../domain/ecosystems/types.js';
import { SEVERITY_RANK } from '../domain/severity.js';
import type { Severity } from '../domain/scan.js';

/** An open finding that names a package, as planning reads it. */
export interface PlanFinding {
  id: string;
  rule_id: string;
  aliases: string | null;
  purl: string;
  package_name: string | null;
  package_version: string | null;
  severity: string;
  fixed_versions: string | null;
  in_kev: boolean | number;
  epss_probability: number | null;
}

/** One affected[] entry of an advisory in the database, for one package. */
export interface PlanAdvisoryEntry {
  advisory_id: string;
  package_key: string;
  aliases: string;
  ranges: string;
  versions: string;
  withdrawn: string | null;
}

/** A direct dependency that pulls the package in. */
export interface Via {
  name: string;
  version: string | null;
}

export interface Action {
  package: string;
  /** The purl without its version: the package in every version. */
  purl: string;
  ecosystem: string;
  from: string;
  /** The version to upgrade to; null when no advisory names a fixed version above `from`. */
  to: string | null;
  /** The vulnerabilities `to` fixes, one id each however many names they go by. */
  vulnerabilities: string[];
  /** Those it leaves: none when `to` is safe. */
  remaining: string[];
  /** The highest severity among the vulnerabilities fixed ('info' when none). */
  severity: Severity;
  /** How many of those fixed are in CISA's KEV catalogue. */
  kev: number;
  /** The highest EPSS probability among those fixed. */
  epss: number | null;
  via: Via[];
  finding_ids: string[];
  /** The ids among those fixed that are in KEV (for counting across repositories). */
  kevIds: string[];
}

interface Vulnerability {
  names: Set<string>;
  severity: Severity;
  kev: boolean;
  epss: number | null;
  /** What scanners said fixes it, for a vulnerability the advisory database does not know. */
  fixedVersions: string[];
  entries: PlanAdvisoryEntry[];
  findingIds: string[];
}

interface ParsedEntry {
  entry: PlanAdvisoryEntry;
  ranges: AffectedRange[];
  versions: string[];
}

/**
 * The upgrade plan of one ref: an action per vulnerable package version. Pure.
 *
 * The candidates are the fixed versions of every advisory naming the package (the database's
 * ranges, and the fixed versions scanners report); the safe version is the smallest candidate above
 * the installed one that no advisory affects. When none is, the candidate that fixes the most (the
 * smallest among equals), saying which remain. A vulnerability the database knows is fixed at a
 * version none of its ranges affect; one only a scanner reports, at a version at or above one of
 * the fixed versions it gave. Actions come most risk removed first: highest severity fixed, then
 * how many are in KEV, then how many are fixed.
 */
export function planActions(
  findings: readonly PlanFinding[], entries: readonly PlanAdvisoryEntry[], known: readonly [string, string][],
  viaOf: (packageKey: string, version: string) => Via[],
): Action[] {
  const entriesByKey = new Map<string, ParsedEntry[]>();
  for (const entry of entries) {
    if (entry.withdrawn !== null) continue;
    const list = entriesByKey.get(entry.package_key) ?? [];
    list.push({ entry, ranges: JSON.parse(entry.ranges) as AffectedRange[], versions: JSON.parse(entry.versions) as string[] });
    entriesByKey.set(entry.package_key, list);
  }
  const linked = nameLinks(known, entries);

  // The findings by package version.
  const groups = new Map<string, { key: string; ecosystem: string; name: string; version: string; purl: string; findings: PlanFinding[] }>();
  for (const f of findings) {
    const pkg = packageOfPurl(f.purl);
    const version = f.package_version ?? pkg?.version ?? null;
    if (!pkg || !version) continue;
    const id = `${pkg.key}\n${version}`;
    let group = groups.get(id);
    if (!group) {
      group = { key: pkg.key, ecosystem: pkg.ecosystem, name: f.package_name ?? pkg.name, version, purl: purlOfPackage(f.purl), findings: [] };
      groups.set(id, group);
    }
    group.findings.push(f);
  }

  const actions: Action[] = [];
  for (const group of groups.values()) {
    const scheme = versionScheme(group.ecosystem, group.version);
    if (!scheme) continue;
    const packageEntries = entriesByKey.get(group.key) ?? [];
    const vulnerabilities = vulnerabilitiesOf(group.findings, packageEntries, linked, scheme, group.version);
    if (vulnerabilities.length === 0) continue;
    const chosen = choose(scheme, group.version, vulnerabilities, packageEntries);
    const fixed = vulnerabilities.filter((v) => chosen !== null && fixes(scheme, chosen, v));
    const remaining = vulnerabilities.filter((v) => !fixed.includes(v));
    let best: Severity = 'info';
    for (const v of fixed) if (SEVERITY_RANK[v.severity] > SEVERITY_RANK[best]) best = v.severity;
    const epss = fixed.reduce<number | null>((max, v) => (v.epss !== null && (max === null || v.epss > max) ? v.epss : max), null);
    actions.push({
      package: group.name, purl: group.purl, ecosystem: group.ecosystem, from: group.version, to: chosen,
      vulnerabilities: fixed.map(idOf).sort(), remaining: remaining.map(idOf).sort(),
      severity: best, kev: fixed.filter((v) => v.kev).length, epss, kevIds: fixed.filter((v) => v.kev).map(idOf),
      via: viaOf(group.key, group.version), finding_ids: vulnerabilities.flatMap((v) => v.findingIds).sort(),
    });
  }
  return actions.sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] || b.kev - a.kev
    || b.vulnerabilities.length - a.vulnerabilities.length || a.package.localeCompare(b.package) || a.from.localeCompare(b.from));
}

/** The purl without version, qualifiers or subpath. */
function purlOfPackage(purl: string): string {
  const bare = purl.replace(/[?#].*$/, '');
  const at = bare.lastIndexOf('@');
  return at > bare.lastIndexOf('/') ? bare.slice(0, at) : bare;
}

/** A name's group: an advisory id and its aliases, as the database links them, case aside. */
function nameLinks(known: readonly [string, string][], entries: readonly PlanAdvisoryEntry[]): (name: string) => string {
  const parent = new Map<string, string>();
  const find = (name: string): string => {
    let root = name;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root)!;
    let at = name;
    while (at !== root) {
      const next = parent.get(at)!;
      parent.set(at, root);
      at = next;
    }
    return root;
  };
  const union = (a: string, b: string) => {
    const [ra, rb] = [find(a.toUpperCase()), find(b.toUpperCase())];
    if (ra !== rb) parent.set(ra, rb);
  };
  for (const [a, b] of known) union(a, b);
  for (const entry of entries) for (const alias of JSON.parse(entry.aliases) as string[]) union(entry.advisory_id, alias);
  return (name) => find(name.toUpperCase());
}

/** The vulnerabilities of one installed package version: its findings, names linked, with the database's entries for them. */
function vulnerabilitiesOf(
  findings: readonly PlanFinding[], entries: readonly ParsedEntry[], link: (name: string) => string, scheme: VersionScheme, installed: string,
): Vulnerability[] {
  const byRoot = new Map<string, Vulnerability>();
  for (const f of findings) {
    const names = [f.rule_id, ...(f.aliases ? (JSON.parse(f.aliases) as string[]) : [])];
    const root = link(f.rule_id);
    let v = byRoot.get(root);
    if (!v) {
      v = { names: new Set(), severity: 'info', kev: false, epss: null, fixedVersions: [], entries: [], findingIds: [] };
      byRoot.set(root, v);
    }
    for (const name of names) v.names.add(name);
    const severity = (SEVERITY_RANK[f.severity as Severity] === undefined ? 'info' : f.severity) as Severity;
    if (SEVERITY_RANK[severity] > SEVERITY_RANK[v.severity]) v.severity = severity;
    v.kev ||= Boolean(f.in_kev);
    if (f.epss_probability !== null && (v.epss === null || Number(f.epss_probability) > v.epss)) v.epss = Number(f.epss_probability);
    for (const fixed of f.fixed_versions ? (JSON.parse(f.fixed_versions) as string[]) : []) if (!v.fixedVersions.includes(fixed)) v.fixedVersions.push(fixed);
    v.findingIds.push(f.id);
  }
  for (const parsed of entries) {
    const v = byRoot.get(link(parsed.entry.advisory_id));
    // Only an entry that affects the installed version speaks of this vulnerability here.
    if (v && matchWith(scheme, installed, parsed).affected) v.entries.push(parsed.entry);
  }
  return [...byRoot.values()];
}

const parsedEntries = new WeakMap<PlanAdvisoryEntry, ParsedEntry>();
function parsedOf(entry: PlanAdvisoryEntry): ParsedEntry {
  let parsed = parsedEntries.get(entry);
  if (!parsed) {
    parsed = { entry, ranges: JSON.parse(entry.ranges) as AffectedRange[], versions: JSON.parse(entry.versions) as string[] };
    parsedEntries.set(entry, parsed);
  }
  return parsed;
}

/** Whether upgrading to `version` fixes the vulnerability. */
function fixes(scheme: VersionScheme, version: string, v: Vulnerability): boolean {
  if (v.entries.length > 0) return v.entries.every((entry) => !matchWith(scheme, version, parsedOf(entry)).affected);
  return v.fixedVersions.some((fixed) => scheme.valid(fixed) && scheme.compare(fixed, version) <= 0);
}

function choose(scheme: VersionScheme, installed: string, vulnerabilities: readonly Vulnerability[], entries: readonly ParsedEntry[]): string | null {
  const candidates = new Set<string>();
  for (const parsed of entries) {
    for (const range of parsed.ranges) for (const event of range.events) if (event.fixed !== undefined) candidates.add(event.fixed);
  }
  for (const v of vulnerabilities) for (const fixed of v.fixedVersions) candidates.add(fixed);
  const above = [...candidates].filter((c) => scheme.valid(c) && scheme.compare(c, installed) > 0).sort((a, b) => scheme.compare(a, b));
  let best: string | null = null;
  let bestFixed = 0;
  for (const candidate of above) {
    const fixedHere = vulnerabilities.filter((v) => fixes(scheme, candidate, v)).length;
    const safe = fixedHere === vulnerabilities.length && entries.every((parsed) => !matchWith(scheme, candidate, parsed).affected);
    if (safe) return candidate;
    if (fixedHere > bestFixed) [best, bestFixed] = [candidate, fixedHere];
  }
  return best;
}

/** A vulnerability's one id: its CVE when it has one, else the first of its names. */
function idOf(v: Vulnerability): string {
  const names = [...v.names].sort();
  return names.find((name) => /^CVE-/i.test(name)) ?? names[0]!;
}
