import { describeType, isRecord, record, text, type JsonRecord } from '../access.js';
import { ParseError, type NormalisedScan } from '../types.js';
import { GENERIC_SCHEMA_ID, parseGeneric } from './generic.js';
import { isGitleaksReport, parseGitleaks } from './gitleaks.js';
import { parseGrype } from './grype.js';
import { parseNpmAudit } from './npm-audit.js';
import { parseOsvScanner } from './osv-scanner.js';
import { parseSemgrep } from './semgrep.js';
import { parseTrivy } from './trivy.js';

export const SUPPORTED_FINDINGS =
  `${GENERIC_SCHEMA_ID}, Trivy JSON, Grype JSON, Semgrep JSON, Gitleaks JSON, npm audit JSON, OSV-Scanner JSON`;

/** A native findings report, recognised by its shape. */
export function parseFindings(doc: unknown): NormalisedScan {
  if (Array.isArray(doc)) {
    if (isGitleaksReport(doc)) return parseGitleaks(doc);
    throw unknownShape('a JSON array that is not a Gitleaks report (objects with RuleID)');
  }
  if (!isRecord(doc)) throw unknownShape(describeType(doc));
  const parse = parserFor(doc);
  if (!parse) throw unknownShape('a JSON object of an unknown shape');
  return parse(doc);
}

function parserFor(doc: JsonRecord): ((doc: JsonRecord) => NormalisedScan) | undefined {
  const schema = text(doc.schema);
  if (schema?.startsWith('scanyard-findings/')) {
    if (schema !== GENERIC_SCHEMA_ID) {
      throw new ParseError(`"schema" is "${schema}"; this server reads ${GENERIC_SCHEMA_ID}`);
    }
    return parseGeneric;
  }
  if (doc.SchemaVersion !== undefined && (doc.Results !== undefined || doc.ArtifactName !== undefined)) {
    return parseTrivy;
  }
  if (Array.isArray(doc.matches)) return parseGrype;
  if (doc.auditReportVersion !== undefined || (isRecord(doc.advisories) && doc.actions !== undefined)) {
    return parseNpmAudit;
  }
  if (Array.isArray(doc.results)) {
    const first = record(doc.results[0]);
    if (first?.check_id !== undefined) return parseSemgrep;
    if (first?.packages !== undefined) return parseOsvScanner;
    if (first === undefined) return doc.paths !== undefined || doc.errors !== undefined ? parseSemgrep : parseOsvScanner;
  }
  return undefined;
}

function unknownShape(what: string): ParseError {
  return new ParseError(`The findings report is ${what}; supported findings formats: ${SUPPORTED_FINDINGS}`);
}

