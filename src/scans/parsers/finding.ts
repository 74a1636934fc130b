import type { NormalisedAnalysis, NormalisedFinding } from '../../domain/scan.js';
import { canonicalToolName } from './tool-name.js';

type Required = Pick<NormalisedFinding, 'ruleId' | 'message' | 'severity'>;

/** A finding with every field the format did not give set to null. */
export function finding(fields: Required & Partial<NormalisedFinding>): NormalisedFinding {
  return {
    ruleName: null,
    level: null,
    kind: null,
    filePath: null,
    startLine: null,
    endLine: null,
    fingerprint: null,
    packageName: null,
    packageVersion: null,
    purl: null,
    securitySeverity: null,
    helpUri: null,
    commitSha: null,
    help: null,
    locations: null,
    snippet: null,
    suppression: null,
    ...fields,
  };
}

export function analysis(name: string, version: string | null): NormalisedAnalysis {
  return { tool: { name: canonicalToolName(name), version }, findings: [], components: [], dependencies: [] };
}

/** The identity of a dependency advisory: which package it is about. */
export function packageFingerprint(
  purl: string | null,
  name: string | null,
  version: string | null,
): string | null {
  if (purl) return purl;
  if (!name) return null;
  return version ? `${name}@${version}` : name;
}

/** Name and version out of `pkg:type/namespace/name@version?qualifiers#subpath`. */
export function purlParts(purl: string): { name: string | null; version: string | null } {
  if (!purl.startsWith('pkg:')) return { name: null, version: null };
  const end = purl.search(/[?#]/);
  const path = end === -1 ? purl.slice(4) : purl.slice(4, end);
  const lastSlash = path.lastIndexOf('/');
  if (lastSlash === -1) return { name: null, version: null };
  const nameAndVersion = path.slice(lastSlash + 1);
  const at = nameAndVersion.indexOf('@');
  const name = at === -1 ? nameAndVersion : nameAndVersion.slice(0, at);
  const version = at === -1 ? null : nameAndVersion.slice(at + 1);
  return { name: name ? safeDecode(name) : null, version: version ? safeDecode(version) : null };
}

export function safeDecode(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
