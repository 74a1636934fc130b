import { acceptedFormats, FORMATS, recognise, syntaxesOf } from './parsers/index.js';
import { firstSignificantByte, HEAD_BYTES, isWhitespace, sniff } from './parsers/sniff.js';
import { SCAN_FORMATS, type ScanFormat } from '../domain/scan.js';
import { FAMILIES, type Syntax } from './parsers/types.js';

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

const ACCEPTED_FORMATS = acceptedFormats();

const CONTENT_TYPES: ReadonlyMap<string, ScanFormat> = new Map(
  FORMATS.flatMap((parser) => parser.contentTypes.map((type) => [type, parser.format] as const)),
);

/**
 * Which format and syntax an upload is in, cheaply: this runs inside the request on bodies of
 * up to 64 MiB, so it never parses the body; it looks at the first character and searches the
 * raw bytes for marker keys (parsers/sniff.ts). The parser validates properly afterwards.
 */
export function detectFormat(body: Buffer, hint: { format?: string; contentType?: string }): DetectedFormat {
  if (body.length === 0) throw new DetectError(400, 'The upload is empty');
  const explicit = formatFromHint(hint.format);
  const start = firstSignificantByte(body);
  if (start === body.length) throw new DetectError(400, 'The upload is empty: it contains only whitespace');
  const syntax = syntaxOf(body, start);
  const format = explicit ?? formatFromContentType(hint.contentType) ?? sniffFormat(body, syntax);
  const allowed = syntaxesOf(format);
  if (!allowed.includes(syntax)) {
    const names = allowed.map((name) => SYNTAX_NAMES[name]).join(' or ');
    throw new DetectError(415, `The upload is ${SYNTAX_NAMES[syntax]}, but ${FAMILIES[format].name} must be ${names}`);
  }
  return { format, syntax };
}

const SYNTAX_NAMES: Record<Syntax, string> = { json: 'JSON', xml: 'XML', 'tag-value': 'SPDX tag-value' };

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

function sniffFormat(body: Buffer, syntax: Syntax): ScanFormat {
  const found = recognise(body, syntax);
  if (found) return found.format;
  if (syntax === 'xml') {
    const root = sniff(body).rootElement();
    const xml = FORMATS.filter((parser) => parser.syntax === 'xml').map((parser) => parser.title).join(' or ');
    const what = root ? `its root element is <${root}>` : 'no root element was found near its start';
    throw new DetectError(415, `The upload is XML, but only ${xml} is accepted; ${what}`);
  }
  throw new DetectError(415, `The upload is ${SYNTAX_NAMES[syntax]}, but not in a format this server reads; accepted formats: ${ACCEPTED_FORMATS}`);
}
