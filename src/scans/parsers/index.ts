import { boundedIdentifiers, describeType, isRecord } from './access.js';
import { cycloneDxJson, cycloneDxXml } from './cyclonedx.js';
import { genericFindings } from './findings/generic.js';
import { gitleaks } from './findings/gitleaks.js';
import { grype } from './findings/grype.js';
import { npmAudit } from './findings/npm-audit.js';
import { osvScanner } from './findings/osv-scanner.js';
import { openVex } from './openvex.js';
import { semgrep } from './findings/semgrep.js';
import { trivy } from './findings/trivy.js';
import { sarif } from './sarif.js';
import { HEAD_BYTES, sniff } from './sniff.js';
import { spdxJson, spdxTagValue } from './spdx.js';
import { parseJson } from './text.js';
import { SCAN_FORMATS, type NormalisedScan, type ScanFormat } from '../../domain/scan.js';
import { FAMILIES, ParseError, type FormatParser, type Syntax } from './types.js';
import { onlyHttpLinks } from '../../domain/links.js';

/**
 * Every format the service reads, and nothing else keeps a list of them: detection, the "unknown
 * format" messages and the OpenAPI document all come from here. Recognition tries them in this
 * order, the most specific markers first.
 */
export const FORMATS: readonly FormatParser[] = [
  genericFindings, cycloneDxJson, spdxJson, sarif, trivy, grype, npmAudit, semgrep, osvScanner, gitleaks,
  openVex, cycloneDxXml, spdxTagValue,
];

/** The format of a document in `syntax`, by its markers; undefined when none recognises it. */
export function recognise(body: Buffer, syntax: Syntax, among: readonly FormatParser[] = FORMATS): FormatParser | undefined {
  const candidates = among.filter((format) => format.syntax === syntax);
  const find = (bytes: Buffer) => {
    const sniffed = sniff(bytes);
    return candidates.find((format) => format.recognises(sniffed));
  };
  // Top-level keys are nearly always near the start; only when nothing is found there is the whole
  // body searched (keys sorted alphabetically can put "bomFormat" after megabytes of components).
  return (body.length > HEAD_BYTES ? find(body.subarray(0, HEAD_BYTES)) : undefined) ?? find(body);
}

/** The syntaxes a family is written in, in the registry's order. */
export function syntaxesOf(family: ScanFormat): Syntax[] {
  return [...new Set(FORMATS.filter((format) => format.format === family).map((format) => format.syntax))];
}

const SYNTAX_NAMES: Record<Syntax, string> = { json: 'JSON', xml: 'XML', 'tag-value': 'tag-value' };

/** "SARIF 2.1.0 (JSON), CycloneDX 1.2–1.6 (JSON or XML), …, findings JSON (scanyard-findings/1, Trivy, …)". */
export function acceptedFormats(): string {
  return SCAN_FORMATS.map((family) => {
    const members = FORMATS.filter((format) => format.format === family);
    const syntaxes = syntaxesOf(family);
    if (members.length > syntaxes.length) {
      return `${FAMILIES[family].versions} ${syntaxes.map((s) => SYNTAX_NAMES[s]).join(' or ')} (${members.map((f) => f.title).join(', ')})`;
    }
    return `${FAMILIES[family].versions} (${syntaxes.map((s) => SYNTAX_NAMES[s]).join(' or ')})`;
  }).join(', ');
}

/**
 * The upload (already decompressed, format and syntax from detectFormat) in normalised form.
 * Throws ParseError, and only ParseError, with a message meant for the uploader.
 */
export function parseScan(body: Buffer, format: ScanFormat, syntax: Syntax): NormalisedScan {
  try {
    return boundedIdentifiers(onlyHttpLinks(parserFor(body, format, syntax).parse(body)));
  } catch (error) {
    if (error instanceof ParseError) throw error;
    // A parser bug or a shape nobody foresaw must still fail the upload cleanly, not the request.
    const reason = error instanceof Error ? error.message : String(error);
    throw new ParseError(`The ${FAMILIES[format].document} could not be read: ${reason}`, { cause: error });
  }
}

function parserFor(body: Buffer, format: ScanFormat, syntax: Syntax): FormatParser {
  const members = FORMATS.filter((candidate) => candidate.format === format && candidate.syntax === syntax);
  const [only] = members;
  if (!only) throw new ParseError(`A ${FAMILIES[format].document} cannot be written as ${syntax}`);
  // A family written one way in this syntax needs no recognising: the uploader may have named it.
  if (members.length === 1) return only;
  const found = recognise(body, syntax, members);
  if (found) return found;
  const doc = parseJson(body, FAMILIES[format].document);
  // The formats written as a JSON array are those that take an empty one for theirs.
  const arrays = members.filter((member) => member.recognises(sniff(Buffer.from('[]')))).map((member) => member.title);
  const shape = Array.isArray(doc) ? `a JSON array that is not a ${arrays.join(' or ')} report`
    : isRecord(doc) ? 'a JSON object of an unknown shape' : describeType(doc);
  throw new ParseError(`The ${FAMILIES[format].document} is ${shape}; supported ${format} formats: ${members.map((m) => m.title).join(', ')}`);
}
