import { PackageURL } from 'packageurl-js';
import type { VexStatementsTable } from '../db/schema.js';
import type { VexStatement } from '../domain/scan.js';

/** A stored statement: the latest one per vulnerability, product and version in a repository. */
export type StoredStatement = Pick<VexStatementsTable, 'vulnerability' | 'product' | 'aliases' | 'status' | 'justification' | 'detail' | 'upload_id' | 'stated_at'> & { version: string };

/** What a statement is matched against: a finding's ids (rule id and aliases) and its package. */
export interface VulnerabilityFinding {
  rule_id: string;
  aliases: string[];
  purl: string | null;
  package_version: string | null;
}

/** The statuses that say the vulnerability does not apply: they dismiss, with their own reason. */
export const DENYING = new Set<string>(['not_affected', 'false_positive']);
/** The statuses that say it does (or may): they reopen what a VEX dismissed. */
export const AFFIRMING = new Set<string>(['affected', 'under_investigation']);

/**
 * A purl as most SBOMs write it: of a type packageurl-js at most lower-cases, in lower-case letters,
 * digits, dots and dashes, with a plain version and neither qualifiers nor subpath. Nothing in it is
 * decoded, normalised or encoded, so its package is the text before the version. Counting a ref's
 * vulnerabilities asks for 10,000 packages at a time, and parsing each (WHATWG URL, then building the
 * package again) was a third of that work. Maven needs a namespace; other types are parsed.
 */
const PLAIN_PURL = /^(pkg:(?:npm|pypi|gem|cargo|nuget|composer)\/(?:[a-z0-9.-]+\/)*[a-z0-9.-]+|pkg:maven\/(?:[a-z0-9.-]+\/)+[a-z0-9.-]+)(?:@([A-Za-z0-9.+_~-]+))?$/;

/** A purl's package (type, namespace, name) and version; qualifiers and subpath name no other package. */
export function packageOf(purl: string): { product: string; version: string } | null {
  const plain = PLAIN_PURL.exec(purl);
  if (plain) return { product: plain[1]!, version: plain[2] ?? '' };
  try {
    const parsed = PackageURL.fromString(purl);
    return { product: new PackageURL(parsed.type, parsed.namespace, parsed.name, undefined, undefined, undefined).toString(), version: parsed.version ?? '' };
  } catch {
    return null;
  }
}

/** Where a parsed statement is kept: its package and version, or `ref:` and the bom-ref for stored SBOMs to resolve. */
export function statementKey(statement: VexStatement): { product: string; version: string } | null {
  if ('ref' in statement.product) return { product: `ref:${statement.product.ref}`, version: '' };
  return packageOf(statement.product.purl);
}

/** The comment a dismissal by a statement carries: its justification, then what it says in words. */
export function commentOf(statement: Pick<StoredStatement, 'justification' | 'detail'>): string | null {
  if (statement.justification && statement.detail) return `${statement.justification}: ${statement.detail}`;
  return statement.justification ?? statement.detail;
}

/**
 * Statements as one lookup, run per finding: a statement applies when one of its ids (the
 * vulnerability or an alias) is one of the finding's (any case), its package is the finding's, and
 * its version, when it names one, is the finding's. Where several apply the newest wins.
 * `resolve` turns a bom-ref into the purl the repository's SBOMs give it.
 */
export function vexMatcher(statements: StoredStatement[], resolve: (ref: string) => string | undefined = () => undefined) {
  const byId = new Map<string, StoredStatement[]>();
  for (const statement of statements) {
    const resolved = statement.product.startsWith('ref:') ? packageOf(resolve(statement.product.slice(4)) ?? '') : null;
    const usable = resolved ? { ...statement, product: resolved.product, version: statement.version || resolved.version } : statement;
    for (const id of [statement.vulnerability, ...(JSON.parse(statement.aliases) as string[])]) {
      const key = id.toUpperCase();
      byId.set(key, [...(byId.get(key) ?? []), usable]);
    }
  }
  return (finding: VulnerabilityFinding): StoredStatement | undefined => {
    if (byId.size === 0 || finding.purl === null) return undefined;
    const pkg = packageOf(finding.purl);
    if (!pkg) return undefined;
    const version = pkg.version || finding.package_version || '';
    let newest: StoredStatement | undefined;
    for (const id of [finding.rule_id, ...finding.aliases]) {
      for (const statement of byId.get(id.toUpperCase()) ?? []) {
        if (statement.product !== pkg.product || (statement.version !== '' && statement.version !== version)) continue;
        if (!newest || statement.stated_at > newest.stated_at) newest = statement;
      }
    }
    return newest;
  };
}
