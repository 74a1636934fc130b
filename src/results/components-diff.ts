import { packageOf } from '../vex/match.js';
import { githubMarkdown } from '../markup.js';

/** A component as the diff reads it. */
export interface DiffComponent {
  name: string;
  version: string | null;
  purl: string | null;
  licenses: string;
}

/** An open finding naming a package, as the diff reads it. */
export interface DiffFinding {
  rule_id: string;
  aliases: string | null;
  purl: string;
  severity: string;
}

export interface PackageVersions { package: string; purl: string | null; versions: string[] }
export interface PackageChange { package: string; purl: string | null; from: string[]; to: string[] }
export interface VulnerabilityChange { id: string; package: string; severity: string }

export interface ComponentsDiff {
  added: PackageVersions[];
  removed: PackageVersions[];
  changed: PackageChange[];
  licenses_changed: PackageChange[];
  vulnerabilities_introduced: VulnerabilityChange[];
  vulnerabilities_fixed: VulnerabilityChange[];
}

interface Package { name: string; purl: string | null; versions: Set<string>; licenses: Set<string> }

/**
 * What changed between two sets of SBOM components. Packages are compared by purl without version
 * (by name when there is no purl): one only in head is added, only in base removed, in both with
 * another set of versions changed (once, however many versions it has). Vulnerabilities are a
 * finding's id (its CVE when it names one, so two tools' names count once) in a package. Pure.
 */
export function diffComponents(base: readonly DiffComponent[], head: readonly DiffComponent[], baseFindings: readonly DiffFinding[], headFindings: readonly DiffFinding[]): ComponentsDiff {
  const [before, after] = [packages(base), packages(head)];
  const diff: ComponentsDiff = { added: [], removed: [], changed: [], licenses_changed: [], vulnerabilities_introduced: [], vulnerabilities_fixed: [] };
  for (const [key, pkg] of after) if (!before.has(key)) diff.added.push({ package: pkg.name, purl: pkg.purl, versions: sorted(pkg.versions) });
  for (const [key, pkg] of before) {
    const now = after.get(key);
    if (!now) {
      diff.removed.push({ package: pkg.name, purl: pkg.purl, versions: sorted(pkg.versions) });
      continue;
    }
    if (!sameSet(pkg.versions, now.versions)) diff.changed.push({ package: pkg.name, purl: pkg.purl, from: sorted(pkg.versions), to: sorted(now.versions) });
    if (!sameSet(pkg.licenses, now.licenses)) diff.licenses_changed.push({ package: pkg.name, purl: pkg.purl, from: sorted(pkg.licenses), to: sorted(now.licenses) });
  }
  const [had, has] = [vulnerabilities(baseFindings), vulnerabilities(headFindings)];
  for (const [key, v] of has) if (!had.has(key)) diff.vulnerabilities_introduced.push(v);
  for (const [key, v] of had) if (!has.has(key)) diff.vulnerabilities_fixed.push(v);
  for (const list of Object.values(diff) as { package: string }[][]) list.sort((a, b) => a.package.localeCompare(b.package));
  return diff;
}

function packages(components: readonly DiffComponent[]): Map<string, Package> {
  const out = new Map<string, Package>();
  for (const c of components) {
    const product = c.purl ? packageOf(c.purl)?.product ?? null : null;
    const key = product ?? `name:${c.name}`;
    let pkg = out.get(key);
    if (!pkg) {
      pkg = { name: c.name, purl: product, versions: new Set(), licenses: new Set() };
      out.set(key, pkg);
    }
    pkg.versions.add(c.version ?? '');
    for (const license of JSON.parse(c.licenses) as string[]) pkg.licenses.add(license);
  }
  return out;
}

function vulnerabilities(findings: readonly DiffFinding[]): Map<string, VulnerabilityChange> {
  const out = new Map<string, VulnerabilityChange>();
  for (const f of findings) {
    const names = [f.rule_id, ...(f.aliases ? (JSON.parse(f.aliases) as string[]) : [])];
    const id = names.find((name) => /^CVE-/i.test(name))?.toUpperCase() ?? f.rule_id;
    const pkg = packageOf(f.purl)?.product ?? f.purl;
    if (!out.has(`${id}\n${pkg}`)) out.set(`${id}\n${pkg}`, { id, package: pkg, severity: f.severity });
  }
  return out;
}

const sorted = (values: Set<string>) => [...values].sort();
const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((v) => b.has(v));

/** The counts of a diff, as the pull request verdict and the markdown summary show them. */
export function diffCounts(diff: ComponentsDiff): Record<keyof ComponentsDiff, number> {
  return Object.fromEntries(Object.entries(diff).map(([key, list]) => [key, (list as unknown[]).length])) as Record<keyof ComponentsDiff, number>;
}

/** At most this many lines per section in the markdown: a comment stays readable, the JSON has them all. */
const SHOWN = 50;

/**
 * The diff as GitHub markdown for a pull request comment. Names, versions and licences come from
 * the SBOMs, so each is escaped to show as itself (githubMarkdown: no links, mentions or markup).
 */
export function diffMarkdown(diff: ComponentsDiff, base: string, head: string): string {
  const e = githubMarkdown;
  const counts = diffCounts(diff);
  const lines = [
    `### Dependency changes: ${e(base)} → ${e(head)}`, '',
    '| Added | Removed | Changed | Licences changed | Vulnerabilities introduced | Vulnerabilities fixed |',
    '|---:|---:|---:|---:|---:|---:|',
    `| ${counts.added} | ${counts.removed} | ${counts.changed} | ${counts.licenses_changed} | ${counts.vulnerabilities_introduced} | ${counts.vulnerabilities_fixed} |`,
  ];
  const section = <T>(title: string, items: T[], line: (item: T) => string) => {
    if (items.length === 0) return;
    lines.push('', `**${title}**`, '', ...items.slice(0, SHOWN).map((item) => `- ${line(item)}`));
    if (items.length > SHOWN) lines.push(`- and ${items.length - SHOWN} more`);
  };
  const versions = (list: string[]) => e(list.filter(Boolean).join(', ') || 'no version');
  section('Vulnerabilities introduced', diff.vulnerabilities_introduced, (v) => `${e(v.id)} in ${e(v.package)} (${e(v.severity)})`);
  section('Vulnerabilities fixed', diff.vulnerabilities_fixed, (v) => `${e(v.id)} in ${e(v.package)}`);
  section('Added', diff.added, (p) => `${e(p.package)} ${versions(p.versions)}`);
  section('Removed', diff.removed, (p) => `${e(p.package)} ${versions(p.versions)}`);
  section('Changed', diff.changed, (p) => `${e(p.package)} ${versions(p.from)} → ${versions(p.to)}`);
  section('Licences changed', diff.licenses_changed, (p) => `${e(p.package)}: ${e(p.from.join(', ') || 'none')} → ${e(p.to.join(', ') || 'none')}`);
  return `${lines.join('\n')}\n`;
}
