import cvss from 'ae-cvss-calculator';
import type { Severity } from '../domain/scan.js';
import { severityFromWord } from '../domain/severity.js';
import { httpLink } from '../domain/links.js';
import { packageKey } from '../domain/ecosystems/index.js';

/**
 * An OSV record (schema 1.x) read into what Scanyard keeps of it. Pure: a parsed JSON value in,
 * an Advisory out, or an OsvError saying why the record is refused.
 */
export interface RangeEvent {
  introduced?: string;
  fixed?: string;
  last_affected?: string;
  limit?: string;
}

export interface AffectedRange {
  type: 'SEMVER' | 'ECOSYSTEM' | 'GIT';
  events: RangeEvent[];
}

export interface AffectedPackage {
  ecosystem: string;
  name: string;
  /** Null when the ecosystem is none we can order: stored for display, never matched. */
  key: string | null;
  ranges: AffectedRange[];
  versions: string[];
}

export interface Advisory {
  id: string;
  modified: string;
  published: string | null;
  withdrawn: string | null;
  aliases: string[];
  summary: string | null;
  details: string | null;
  severity: Severity;
  /** The CVSS score the severity was computed from, when the record has a vector we can score. */
  cvssScore: number | null;
  affected: AffectedPackage[];
  /** Where to read more (OSV `references`): http and https URLs only, since they are shown as links. */
  references: { type: string; url: string }[];
}

export class OsvError extends Error {
  override readonly name = 'OsvError';
}

const RANGE_TYPES = new Set(['SEMVER', 'ECOSYSTEM', 'GIT']);
const EVENT_KINDS = ['introduced', 'fixed', 'last_affected', 'limit'] as const;

/**
 * The longest id, alias, ecosystem and package name kept. Each is an indexed key (ids and aliases
 * twice over, with the package's key), and PostgreSQL refuses a key of over 2,704 bytes: at four
 * bytes a character these stay under it. Real ones are far shorter; a record exceeding one is refused.
 */
const MAX_ID = 200;
const MAX_ECOSYSTEM = 100;
const MAX_NAME = 500;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** PostgreSQL text cannot hold NUL (SQLite can): dropped from every text kept, as from scan uploads. */
const withoutNul = (value: string): string => value.replaceAll('\u0000', '');
const text = (value: unknown): string | null => {
  const kept = typeof value === 'string' ? withoutNul(value) : '';
  return kept.trim() !== '' ? kept : null;
};
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.flatMap((v) => (typeof v === 'string' && withoutNul(v) !== '' ? [withoutNul(v)] : [])) : []);

function bounded(value: string, field: string, max: number): string {
  if (value.length > max) throw new OsvError(`"${field}" is longer than ${max} characters`);
  return value;
}

/** An RFC 3339 timestamp, kept as UTC ISO text so that stored values compare as strings. */
function timestamp(value: unknown, field: string, required: true): string;
function timestamp(value: unknown, field: string, required: false): string | null;
function timestamp(value: unknown, field: string, required: boolean): string | null {
  if (value === undefined || value === null) {
    if (required) throw new OsvError(`"${field}" is missing`);
    return null;
  }
  const at = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(at)) throw new OsvError(`"${field}" is not an RFC 3339 timestamp`);
  return new Date(at).toISOString();
}

export function parseOsv(record: unknown): Advisory {
  if (!isObject(record)) throw new OsvError('an OSV record must be a JSON object');
  const found = text(record.id);
  if (!found) throw new OsvError('"id" is missing');
  const id = bounded(found, 'id', MAX_ID);
  const affected = Array.isArray(record.affected) ? record.affected.map((entry, i) => parseAffected(entry, `affected[${i}].package`)) : [];
  const scored = cvssScore(record.severity) ?? affectedScore(record.affected);
  return {
    id,
    modified: timestamp(record.modified, 'modified', true),
    published: timestamp(record.published, 'published', false),
    withdrawn: timestamp(record.withdrawn, 'withdrawn', false),
    aliases: [...new Set(strings(record.aliases))].filter((alias) => alias !== id).map((alias) => bounded(alias, 'aliases', MAX_ID)),
    summary: text(record.summary),
    details: text(record.details),
    severity: scored !== null ? cvssSeverity(scored) : wordSeverity(record) ?? 'medium',
    cvssScore: scored,
    affected: affected.filter((a): a is AffectedPackage => a !== null),
    references: (Array.isArray(record.references) ? record.references : []).flatMap((reference) => {
      if (!isObject(reference)) return [];
      const url = httpLink(text(reference.url));
      return url ? [{ type: text(reference.type) ?? 'WEB', url }] : [];
    }),
  };
}

function parseAffected(value: unknown, field: string): AffectedPackage | null {
  if (!isObject(value) || !isObject(value.package)) return null;
  const ecosystem = text(value.package.ecosystem);
  const name = text(value.package.name);
  if (!ecosystem || !name) return null;
  bounded(ecosystem, `${field}.ecosystem`, MAX_ECOSYSTEM);
  bounded(name, `${field}.name`, MAX_NAME);
  const ranges: AffectedRange[] = [];
  for (const range of Array.isArray(value.ranges) ? value.ranges : []) {
    if (!isObject(range) || typeof range.type !== 'string' || !RANGE_TYPES.has(range.type) || !Array.isArray(range.events)) continue;
    const events: RangeEvent[] = [];
    for (const event of range.events) {
      if (!isObject(event)) continue;
      const kind = EVENT_KINDS.find((k) => typeof event[k] === 'string');
      if (kind) events.push({ [kind]: withoutNul(event[kind] as string) });
    }
    ranges.push({ type: range.type as AffectedRange['type'], events });
  }
  return { ecosystem, name, key: packageKey(ecosystem, name), ranges, versions: strings(value.versions) };
}

/** The highest score among the record's CVSS v3 and v4 vectors; null when none can be scored. */
function cvssScore(severity: unknown): number | null {
  let best: number | null = null;
  for (const entry of Array.isArray(severity) ? severity : []) {
    if (!isObject(entry) || typeof entry.score !== 'string') continue;
    const score = scoreVector(entry.type, entry.score);
    if (score !== null && (best === null || score > best)) best = score;
  }
  return best;
}

function affectedScore(affected: unknown): number | null {
  let best: number | null = null;
  for (const entry of Array.isArray(affected) ? affected : []) {
    const score = isObject(entry) ? cvssScore(entry.severity) : null;
    if (score !== null && (best === null || score > best)) best = score;
  }
  return best;
}

function scoreVector(type: unknown, vector: string): number | null {
  // Each metric once (CVSS v3.1 and v4.0 alike); the calculator lets a repeated one override the first.
  const metrics = vector.split('/').slice(1).map((part) => part.split(':')[0]);
  if (new Set(metrics).size !== metrics.length) return null;
  try {
    if (type === 'CVSS_V3' && vector.startsWith('CVSS:3.1/')) return new cvss.Cvss3P1(vector).calculateScores().base ?? null;
    if (type === 'CVSS_V3' && vector.startsWith('CVSS:3.0/')) return new cvss.Cvss3P0(vector).calculateScores().base ?? null;
    if (type === 'CVSS_V4' && vector.startsWith('CVSS:4.0/')) return new cvss.Cvss4P0(vector).calculateScores().base ?? null;
  } catch {
    // A malformed vector rates nothing; the record's own severity word is used instead.
  }
  return null;
}

/** CVSS's qualitative scale (v3.1 and v4.0 alike): 9.0 and up critical, 7.0 high, 4.0 medium, 0.1 low. */
function cvssSeverity(score: number): Severity {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score > 0) return 'low';
  return 'info';
}

/** `database_specific.severity` of the record (GitHub's "MODERATE", ...) or of an affected entry. */
function wordSeverity(record: Record<string, unknown>): Severity | undefined {
  const own = isObject(record.database_specific) ? severityFromWord(record.database_specific.severity) : undefined;
  if (own) return own;
  for (const entry of Array.isArray(record.affected) ? record.affected : []) {
    const word = isObject(entry) && isObject(entry.database_specific) ? severityFromWord(entry.database_specific.severity) : undefined;
    if (word) return word;
  }
  return undefined;
}
