import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { isRecord, type JsonRecord } from './access.js';
import { ParseError } from './types.js';

/** Deep enough for any real BOM (nested components take two levels each), shallow enough to stay cheap. */
const MAX_NESTED_TAGS = 100;
const DOCTYPE = /<!DOCTYPE/i;

/**
 * Parses untrusted XML into plain objects: attributes as `@_name`, namespace prefixes dropped,
 * text kept as strings (a version "1.10" must not become the number 1.1).
 *
 * A DOCTYPE is refused outright. No format we accept needs one, and it is where entity bombs
 * (billion laughs) and external entities (XXE, file:///etc/passwd) live. fast-xml-parser 5 already
 * refuses SYSTEM entities and caps expansions, but refusing the DTD leaves nothing to trust.
 */
export function parseXml(source: string, arrayTags: ReadonlySet<string>): JsonRecord {
  if (DOCTYPE.test(source)) {
    throw new ParseError(
      'XML with a DOCTYPE declaration is not accepted: the formats we read need no DTD, and DTD entities can be used to attack parsers',
    );
  }
  const valid = XMLValidator.validate(source);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    throw new ParseError(`The XML is malformed: ${msg} (line ${line}, column ${col})`);
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    // Without it numeric character references (&#169;) stay undecoded; no DTD, so no custom entities.
    htmlEntities: true,
    processEntities: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    maxNestedTags: MAX_NESTED_TAGS,
    jPath: false,
    isArray: (tagName) => arrayTags.has(tagName),
  });
  let parsed: unknown;
  try {
    parsed = parser.parse(source);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (reason.includes('nested tags')) {
      throw new ParseError(`The XML is nested more than ${MAX_NESTED_TAGS} elements deep`);
    }
    throw new ParseError(`The XML could not be read: ${reason}`);
  }
  if (!isRecord(parsed)) throw new ParseError('The XML has no root element');
  return parsed;
}

/** The text of an element, whether it was read as a plain string or as { '#text', '@_attr' }. */
export function xmlText(value: unknown): string | undefined {
  if (Array.isArray(value)) return xmlText(value[0]);
  const raw = isRecord(value) ? value['#text'] : value;
  if (typeof raw !== 'string') return undefined;
  return raw.trim() === '' ? undefined : raw;
}
