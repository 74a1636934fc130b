import type { Syntax } from './parsers/index.js';
import { SCAN_FORMATS, type ScanFormat } from './parsers/types.js';

/** Why an upload cannot even be handed to a parser: 400 for the request, 415 for the content. */
export class DetectError extends Error {
  override readonly name = 'DetectError';

  constructor(
    readonly status: 400 | 415,
    message: string,
  ) {
    super(message);
  }
}

export interface DetectedFormat {
  format: ScanFormat;
  syntax: Syntax;
}

export const ACCEPTED_FORMATS =
  'SARIF 2.1.0 (JSON), CycloneDX 1.2–1.6 (JSON or XML), SPDX 2.2/2.3 (JSON or tag-value), ' +
  'findings JSON (scanyard-findings/1, Trivy, Grype, Semgrep, Gitleaks, npm audit, OSV-Scanner)';

const CONTENT_TYPES: ReadonlyMap<string, ScanFormat> = new Map<string, ScanFormat>([
  ['application/sarif+json', 'sarif'],
  ['application/vnd.cyclonedx+json', 'cyclonedx'],
  ['application/vnd.cyclonedx+xml', 'cyclonedx'],
  ['application/spdx+json', 'spdx'],
  ['text/spdx', 'spdx'],
]);

const SYNTAXES: Record<ScanFormat, readonly Syntax[]> = {
  sarif: ['json'],
  cyclonedx: ['json', 'xml'],
  spdx: ['json', 'tag-value'],
  findings: ['json'],
};

/**
 * Sniffing looks at this much of the upload first: top-level keys are nearly always there.
 * Only when nothing is recognised is the whole body searched (keys sorted alphabetically can
 * put "bomFormat" or "spdxVersion" after megabytes of components).
 */
const HEAD_BYTES = 256 * 1024;

/**
 * Which format and syntax an upload is in, cheaply: this runs inside the request on bodies of
 * up to 64 MiB, so it never parses the body; it looks at the first character and searches the
 * raw bytes for marker keys. The parser validates properly afterwards.
 */
export function detectFormat(body: Buffer, hint: { format?: string; contentType?: string }): DetectedFormat {
  if (body.length === 0) throw new DetectError(400, 'The upload is empty');
  const explicit = formatFromHint(hint.format);
  const start = firstSignificantByte(body);
  if (start === body.length) throw new DetectError(400, 'The upload is empty: it contains only whitespace');
  const syntax = syntaxOf(body, start);
  const format = explicit ?? formatFromContentType(hint.contentType) ?? sniff(body, start, syntax);
  if (!SYNTAXES[format].includes(syntax)) {
    const allowed = SYNTAXES[format].map((name) => SYNTAX_NAMES[name]).join(' or ');
    throw new DetectError(415, `The upload is ${SYNTAX_NAMES[syntax]}, but ${FORMAT_NAMES[format]} must be ${allowed}`);
  }
  return { format, syntax };
}

const SYNTAX_NAMES: Record<Syntax, string> = { json: 'JSON', xml: 'XML', 'tag-value': 'SPDX tag-value' };
const FORMAT_NAMES: Record<ScanFormat, string> = {
  sarif: 'SARIF',
  cyclonedx: 'CycloneDX',
  spdx: 'SPDX',
  findings: 'a findings report',
};

function formatFromHint(format: string | undefined): ScanFormat | undefined {
  if (format === undefined || format.trim() === '') return undefined;
  const wanted = format.trim().toLowerCase();
  const known = SCAN_FORMATS.find((candidate) => candidate === wanted);
  if (!known) {
    throw new DetectError(400, `Unknown format ${JSON.stringify(format)}; use one of ${SCAN_FORMATS.join(', ')}`);
  }
  return known;
}

/** Generic types (application/json, text/plain, application/octet-stream, ...) say nothing. */
function formatFromContentType(contentType: string | undefined): ScanFormat | undefined {
  if (!contentType) return undefined;
  const mediaType = (contentType.split(';', 1)[0] ?? '').trim().toLowerCase();
  return CONTENT_TYPES.get(mediaType);
}

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

function firstSignificantByte(body: Buffer): number {
  let i = body[0] === UTF8_BOM[0] && body[1] === UTF8_BOM[1] && body[2] === UTF8_BOM[2] ? 3 : 0;
  while (i < body.length && isWhitespace(body[i] ?? 0)) i++;
  return i;
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

const TAG_VALUE_VERSION = /^[ \t]*SPDXVersion:[ \t]*SPDX-/m;
const HTML = /^<(!doctype\s+html|html[\s>]|head[\s>]|body[\s>])/i;

function syntaxOf(body: Buffer, start: number): Syntax {
  const first = body[start];
  if (first === 0x7b /* { */ || first === 0x5b /* [ */) return 'json';
  if (first === 0x3c /* < */) {
    if (HTML.test(body.toString('latin1', start, start + 64))) {
      throw new DetectError(415, `The upload is an HTML page, not a scan result; accepted formats: ${ACCEPTED_FORMATS}`);
    }
    return 'xml';
  }
  if (TAG_VALUE_VERSION.test(body.toString('utf8', start, start + HEAD_BYTES))) return 'tag-value';
  throw new DetectError(415, `The upload is not JSON, XML nor SPDX tag-value: ${lookOf(body, start)}`);
}

/** What an unreadable upload looks like, so that the uploader sees their mistake. */
function lookOf(body: Buffer, start: number): string {
  const ascii = body.toString('latin1', start, start + 8);
  if (ascii.startsWith('%PDF')) return 'it starts with %PDF, so it is a PDF document';
  if (ascii.startsWith('PK\u0003\u0004')) return 'it starts with PK, so it is a ZIP archive; upload the file inside';
  if (body[start] === 0x1f && body[start + 1] === 0x8b) {
    return 'it is gzip-compressed; send it with Content-Encoding: gzip, or decompress it first';
  }
  if ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff)) {
    return 'it is UTF-16 text; upload it as UTF-8';
  }
  const sample = body.subarray(start, start + 512);
  if (sample.some((byte) => byte === 0 || (byte < 0x20 && !isWhitespace(byte)))) {
    return 'it is binary data';
  }
  const firstLine = (sample.toString('utf8').split(/\r?\n/, 1)[0] ?? '').slice(0, 40);
  return `it is text starting with ${JSON.stringify(firstLine)}`;
}

function sniff(body: Buffer, start: number, syntax: Syntax): ScanFormat {
  if (syntax === 'tag-value') return 'spdx';
  if (syntax === 'xml') return sniffXml(body, start);
  const head = body.length > HEAD_BYTES ? body.subarray(0, HEAD_BYTES) : undefined;
  const format = (head && sniffJson(head, body[start])) ?? sniffJson(body, body[start]);
  if (format) return format;
  throw new DetectError(
    415,
    `The upload is JSON, but not in a format this server reads; accepted formats: ${ACCEPTED_FORMATS}`,
  );
}

/** Marker keys, most specific first. A raw `"key":` can only be a key: quotes inside strings are escaped. */
function sniffJson(json: Buffer, first: number | undefined): ScanFormat | undefined {
  if (first === 0x5b /* [ */) {
    // Gitleaks writes an array of leaks, and [] when it found none.
    return hasKey(json, 'RuleID') || isEmptyArray(json) ? 'findings' : undefined;
  }
  if (keyValueStartsWith(json, 'schema', 'scanyard-findings/')) return 'findings';
  if (keyValueStartsWith(json, 'bomFormat', 'CycloneDX')) return 'cyclonedx';
  if (keyValueStartsWith(json, 'spdxVersion', 'SPDX-')) return 'spdx';
  if (hasKey(json, '@context') && json.includes('spdx.org/rdf/3')) return 'spdx';
  if (hasKey(json, 'runs') && hasKey(json, 'version')) return 'sarif';
  if (hasKey(json, 'SchemaVersion') && (hasKey(json, 'ArtifactName') || hasKey(json, 'Results'))) return 'findings';
  if (hasKey(json, 'matches') && (hasKey(json, 'matchDetails') || hasKey(json, 'descriptor'))) return 'findings';
  if (hasKey(json, 'auditReportVersion') || (hasKey(json, 'advisories') && hasKey(json, 'actions'))) {
    return 'findings';
  }
  if (hasKey(json, 'results')) {
    if (hasKey(json, 'check_id') || (hasKey(json, 'paths') && hasKey(json, 'errors'))) return 'findings';
    if (hasKey(json, 'packages')) return 'findings';
  }
  return undefined;
}

/** `"key"` followed by optional whitespace and a colon. */
function hasKey(json: Buffer, key: string): boolean {
  return valueAfterKey(json, key) !== -1;
}

/** `"key": "prefix...`: a string value that starts with the prefix. */
function keyValueStartsWith(json: Buffer, key: string, prefix: string): boolean {
  const needle = `"${prefix}`;
  for (let from = 0; ; ) {
    const at = valueAfterKey(json, key, from);
    if (at === -1) return false;
    if (json.toString('latin1', at, at + needle.length) === needle) return true;
    from = at;
  }
}

/** Offset of the first non-blank byte after `"key":`, or -1. */
function valueAfterKey(json: Buffer, key: string, from = 0): number {
  const quoted = `"${key}"`;
  for (let at = json.indexOf(quoted, from, 'latin1'); at !== -1; at = json.indexOf(quoted, at + 1, 'latin1')) {
    let i = at + quoted.length;
    while (i < json.length && isWhitespace(json[i] ?? 0)) i++;
    if (json[i] !== 0x3a /* : */) continue;
    i++;
    while (i < json.length && isWhitespace(json[i] ?? 0)) i++;
    return i;
  }
  return -1;
}

function isEmptyArray(json: Buffer): boolean {
  const open = firstSignificantByte(json);
  let i = open + 1;
  while (i < json.length && isWhitespace(json[i] ?? 0)) i++;
  return json[i] === 0x5d /* ] */;
}

/**
 * The root element's name, after the XML declaration, comments, processing instructions and a
 * DOCTYPE (which the parser refuses later, with a reason).
 */
function sniffXml(body: Buffer, start: number): ScanFormat {
  const root = rootElement(body.toString('utf8', start, start + HEAD_BYTES));
  const localName = root?.slice(root.indexOf(':') + 1);
  if (localName === 'bom') return 'cyclonedx';
  const what = root ? `its root element is <${root}>` : 'no root element was found near its start';
  throw new DetectError(415, `The upload is XML, but only CycloneDX XML (a <bom> root element) is accepted; ${what}`);
}

const ELEMENT_NAME = /^<([A-Za-z_][\w.:-]*)/;

function rootElement(xml: string): string | undefined {
  let i = 0;
  for (;;) {
    i = xml.indexOf('<', i);
    if (i === -1) return undefined;
    if (xml.startsWith('<?', i)) i = after(xml, '?>', i);
    else if (xml.startsWith('<!--', i)) i = after(xml, '-->', i);
    else if (xml.startsWith('<!', i)) i = afterDoctype(xml, i);
    else return ELEMENT_NAME.exec(xml.slice(i, i + 256))?.[1];
    if (i === -1) return undefined;
  }
}

function after(xml: string, terminator: string, from: number): number {
  const end = xml.indexOf(terminator, from);
  return end === -1 ? -1 : end + terminator.length;
}

const DOCTYPE_SUBSET_END = /\]\s*>/;

function afterDoctype(xml: string, from: number): number {
  const close = xml.indexOf('>', from);
  const subset = xml.indexOf('[', from);
  if (subset !== -1 && (close === -1 || subset < close)) {
    const end = DOCTYPE_SUBSET_END.exec(xml.slice(subset));
    return end ? subset + end.index + end[0].length : -1;
  }
  return close === -1 ? -1 : close + 1;
}
