import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { advisoryStore, type ComponentAffected } from '../advisories/store.js';
import { matchWith } from '../advisories/match.js';
import type { AffectedRange } from '../advisories/osv.js';
import { versionScheme } from '../domain/ecosystems/index.js';
import { finding } from './parsers/finding.js';
import type { NormalisedAnalysis, Severity } from '../domain/scan.js';

/** The analysis a ref's advisory matches live in: one per ref, whatever the SBOMs' tools. */
export const ADVISORIES = { tool: 'advisories', category: 'advisories', format: 'findings' } as const;

export interface AdvisoryMatches {
  analysis: NormalisedAnalysis;
  /** Components with a purl whose ecosystem or version cannot be ordered: not matched, not guessed. */
  unchecked: number;
}

/** An affected entry as matching needs it, parsed once however many components of its package there are. */
interface Affected {
  ranges: AffectedRange[];
  versions: string[];
  /** Parsed when a version is found affected (for the finding), not before. */
  aliases: string[] | null;
}

/**
 * Matches every component of a ref (all its SBOMs) against the advisory database: one query gives
 * each component with the affected entries of its package (by `package_key`, indexed), then each
 * version is compared with each entry with its ecosystem's ordering. The finding's identity is the
 * advisory and the package without its version, so an upgrade that is still affected keeps the
 * finding open.
 */
export async function matchRef(db: Kysely<Database>, refId: string): Promise<AdvisoryMatches> {
  return matchComponents(await advisoryStore(db).refComponentsAffected(refId));
}

/** Pure: the matches of components, each row a component with one affected entry of its package (or none). */
export function matchComponents(rows: ComponentAffected[]): AdvisoryMatches {
  const analysis: NormalisedAnalysis = { tool: { name: ADVISORIES.tool, version: null }, findings: [], components: [], dependencies: [] };
  const uncheckable = new Set<string>();
  const parsed = new Map<string, Affected>();
  for (const row of rows) {
    const ecosystem = row.package_key?.slice(0, row.package_key.indexOf('|'));
    const scheme = row.package_key && ecosystem && row.version ? versionScheme(ecosystem, row.version) : null;
    if (!scheme || !row.version || !row.package_key) {
      uncheckable.add(row.id);
      continue;
    }
    if (row.advisory_id === null || row.withdrawn !== null) continue;
    const entryKey = `${row.advisory_id}\n${row.ordinal}`;
    let affected = parsed.get(entryKey);
    if (!affected) {
      affected = { ranges: JSON.parse(row.ranges!) as AffectedRange[], versions: row.versions === '[]' ? [] : JSON.parse(row.versions!) as string[], aliases: null };
      parsed.set(entryKey, affected);
    }
    const result = matchWith(scheme, row.version, affected);
    if (!result.affected) continue;
    affected.aliases ??= JSON.parse(row.aliases!) as string[];
    const fixed = result.fixedVersions.length > 0 ? `; fixed in ${result.fixedVersions.join(', ')}` : '';
    analysis.findings.push(finding({
      ruleId: row.advisory_id,
      ruleName: row.summary,
      message: `${row.name} ${row.version} is affected by ${[row.advisory_id, ...affected.aliases].join(' / ')}${fixed}`,
      severity: row.severity as Severity,
      fingerprint: row.package_key,
      packageName: row.name,
      packageVersion: row.version,
      purl: row.purl,
      helpUri: `https://osv.dev/vulnerability/${encodeURIComponent(row.advisory_id)}`,
      aliases: affected.aliases,
      fixedVersions: result.fixedVersions,
    }));
  }
  return { analysis, unchecked: uncheckable.size };
}
