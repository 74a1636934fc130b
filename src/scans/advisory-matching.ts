import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { advisoryStore } from '../advisories/store.js';
import { matchVersion } from '../advisories/match.js';
import type { AffectedRange } from '../advisories/osv.js';
import { versionScheme } from '../advisories/ecosystems/index.js';
import { finding } from './parsers/finding.js';
import type { NormalisedAnalysis, Severity } from './parsers/types.js';

/** The analysis a ref's advisory matches live in: one per ref, whatever the SBOMs' tools. */
export const ADVISORIES = { tool: 'advisories', category: 'advisories', format: 'findings' } as const;

export interface AdvisoryMatches {
  analysis: NormalisedAnalysis;
  /** Components with a purl whose ecosystem or version cannot be ordered: not matched, not guessed. */
  unchecked: number;
}

/**
 * Matches every component of a ref (all its SBOMs) against the advisory database: one indexed
 * lookup of the advisories naming the ref's packages, then each version against each affected
 * entry with its ecosystem's ordering. The finding's identity is the advisory and the package
 * without its version, so an upgrade that is still affected keeps the finding open.
 */
export async function matchRef(db: Kysely<Database>, refId: string): Promise<AdvisoryMatches> {
  const store = advisoryStore(db);
  const components = await store.refComponents(refId);
  let unchecked = 0;
  const checkable: { name: string; version: string; purl: string; key: string; ecosystem: string }[] = [];
  for (const c of components) {
    const ecosystem = c.package_key?.slice(0, c.package_key.indexOf('|'));
    if (!c.package_key || !ecosystem || !c.version || !versionScheme(ecosystem, c.version)) {
      unchecked++;
      continue;
    }
    checkable.push({ name: c.name, version: c.version, purl: c.purl!, key: c.package_key, ecosystem });
  }
  const byKey = new Map<string, Awaited<ReturnType<typeof store.affecting>>>();
  for (const row of await store.affecting([...new Set(checkable.map((c) => c.key))])) {
    const list = byKey.get(row.package_key!) ?? [];
    list.push(row);
    byKey.set(row.package_key!, list);
  }
  const analysis: NormalisedAnalysis = { tool: { name: ADVISORIES.tool, version: null }, findings: [], components: [], dependencies: [] };
  for (const component of checkable) {
    for (const row of byKey.get(component.key) ?? []) {
      const ranges = JSON.parse(row.ranges) as AffectedRange[];
      const versions = JSON.parse(row.versions) as string[];
      const result = matchVersion(component.ecosystem, component.version, { ranges, versions });
      if (!result?.affected) continue;
      const aliases = JSON.parse(row.aliases) as string[];
      const fixed = result.fixedVersions.length > 0 ? `; fixed in ${result.fixedVersions.join(', ')}` : '';
      analysis.findings.push(finding({
        ruleId: row.advisory_id,
        ruleName: row.summary,
        message: `${component.name} ${component.version} is affected by ${[row.advisory_id, ...aliases].join(' / ')}${fixed}`,
        severity: row.severity as Severity,
        fingerprint: component.key,
        packageName: component.name,
        packageVersion: component.version,
        purl: component.purl,
        helpUri: `https://osv.dev/vulnerability/${encodeURIComponent(row.advisory_id)}`,
        aliases,
        fixedVersions: result.fixedVersions,
      }));
    }
  }
  return { analysis, unchecked };
}
