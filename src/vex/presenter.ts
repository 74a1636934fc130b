import { randomUUID } from 'node:crypto';
import type { VexFindingRow } from './store.js';
import { justificationIn, type VexFormat } from './justifications.js';

/** What a VEX statement says about one vulnerability in one package. */
type Status = 'not_affected' | 'affected' | 'fixed';

interface Statement { vulnerability: string; aliases: string[]; purl: string; status: Status; falsePositive: boolean; note: string | null }

/** An open finding anywhere makes the package affected; a dismissal that denies it outweighs a fix elsewhere. */
const PRECEDENCE: Record<Status, number> = { affected: 3, not_affected: 2, fixed: 1 };

/** The dismissal reasons that say the vulnerability does not apply; other reasons accept a real one. */
const DENYING = new Set(['not_affected', 'false_positive']);

/** One statement per vulnerability and package: several tools (or analyses) may report the same pair. */
function statementsOf(rows: VexFindingRow[]): Statement[] {
  const byKey = new Map<string, Statement>();
  for (const row of rows) {
    const status: Status = row.state === 'fixed' ? 'fixed'
      : row.state === 'dismissed' && row.dismissed_reason !== null && DENYING.has(row.dismissed_reason) ? 'not_affected' : 'affected';
    const note = row.state === 'dismissed' ? row.dismissed_comment : null;
    const statement = {
      vulnerability: row.rule_id, aliases: row.aliases ? (JSON.parse(row.aliases) as string[]) : [], purl: row.purl, status,
      falsePositive: status === 'not_affected' && row.dismissed_reason === 'false_positive', note,
    };
    const key = `${row.rule_id}\n${row.purl}`;
    const earlier = byKey.get(key);
    if (!earlier || PRECEDENCE[status] > PRECEDENCE[earlier.status]) byKey.set(key, statement);
  }
  return [...byKey.values()];
}

/**
 * A not_affected statement's justification and words from the dismissal's comment: one a VEX made is
 * its justification, then ": " and its words (vex/match.ts, commentOf); a person's is words, or a
 * justification when that is all it says. A justification of the other format is mapped, and the
 * words begin with it as it was stated.
 */
function notAffected(note: string | null, format: VexFormat, words: 'impact_statement' | 'detail', fallback: string | null) {
  const colon = note?.indexOf(': ') ?? -1;
  const head = note !== null && colon > 0 ? note.slice(0, colon) : note;
  const known = head === null ? undefined : justificationIn(format, head);
  if (known) {
    const rest = note !== null && colon > 0 ? note.slice(colon + 2) : null;
    const said = [known.stated, rest].filter((part) => part).join(' ');
    return { justification: known.justification, ...(said ? { [words]: said } : {}) };
  }
  const said = note ?? fallback;
  return said === null ? {} : { [words]: said };
}

/** An OpenVEX 0.2.0 document. */
export function presentOpenVex(repositoryName: string, rows: VexFindingRow[], at: string) {
  return {
    '@context': 'https://openvex.dev/ns/v0.2.0',
    '@id': `urn:uuid:${randomUUID()}`,
    // `role` would be the author's role (OpenVEX 0.2.0); the tool writing the triage down has none.
    author: `Scanyard, triage of ${repositoryName}`,
    timestamp: at,
    version: 1,
    tooling: 'Scanyard',
    statements: statementsOf(rows).map((s) => ({
      vulnerability: { name: s.vulnerability, ...(s.aliases.length > 0 ? { aliases: s.aliases } : {}) },
      products: [{ '@id': s.purl }],
      status: s.status,
      ...(s.status === 'not_affected'
        ? notAffected(s.note, 'openvex', 'impact_statement', s.falsePositive ? 'Dismissed as a false positive.' : 'Dismissed as not affecting this product.')
        : {}),
      // OpenVEX asks an affected statement for the action to take.
      ...(s.status === 'affected' ? { action_statement: s.note ?? 'Upgrade the package to a version with the fix.' } : {}),
    })),
  };
}

/** A CycloneDX 1.6 VEX: vulnerabilities whose analysis carries the triage, each affecting its package by purl. */
export function presentCycloneDxVex(rows: VexFindingRow[], at: string) {
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${randomUUID()}`,
    version: 1,
    metadata: { timestamp: at, tools: { components: [{ type: 'application', name: 'Scanyard' }] } },
    vulnerabilities: statementsOf(rows).map((s) => ({
      id: s.vulnerability,
      ...(s.aliases.length > 0 ? { references: s.aliases.map((alias) => ({ id: alias, source: { name: alias.split('-')[0] } })) } : {}),
      affects: [{ ref: s.purl }],
      analysis: s.status === 'not_affected'
        // CycloneDX says false_positive itself; OpenVEX has only not_affected for it.
        ? { state: s.falsePositive ? 'false_positive' : 'not_affected', ...notAffected(s.note, 'cyclonedx', 'detail', null) }
        : { state: s.status === 'fixed' ? 'resolved' : 'exploitable', ...(s.note ? { detail: s.note } : {}) },
    })),
  };
}
