import { parseCycloneDxJson, parseCycloneDxXml } from './cyclonedx.js';
import { parseFindings } from './findings/index.js';
import { parseSarif } from './sarif.js';
import { parseSpdxJson, parseSpdxTagValue } from './spdx.js';
import { decodeText, parseJson } from './text.js';
import { ParseError, type NormalisedScan, type ScanFormat } from './types.js';

export type Syntax = 'json' | 'xml' | 'tag-value';

const NAMES: Record<ScanFormat, string> = {
  sarif: 'SARIF log',
  cyclonedx: 'CycloneDX BOM',
  spdx: 'SPDX document',
  findings: 'findings report',
};

/**
 * The upload (already decompressed, format and syntax from detectFormat) in normalised form.
 * Throws ParseError, and only ParseError, with a message meant for the uploader.
 */
export function parseScan(body: Buffer, format: ScanFormat, syntax: Syntax): NormalisedScan {
  try {
    return dispatch(body, format, syntax);
  } catch (error) {
    if (error instanceof ParseError) throw error;
    // A parser bug or a shape nobody foresaw must still fail the upload cleanly, not the request.
    const reason = error instanceof Error ? error.message : String(error);
    throw new ParseError(`The ${NAMES[format]} could not be read: ${reason}`, { cause: error });
  }
}

function dispatch(body: Buffer, format: ScanFormat, syntax: Syntax): NormalisedScan {
  switch (`${format}/${syntax}`) {
    case 'sarif/json':
      return parseSarif(parseJson(body, NAMES.sarif));
    case 'cyclonedx/json':
      return parseCycloneDxJson(parseJson(body, NAMES.cyclonedx));
    case 'cyclonedx/xml':
      return parseCycloneDxXml(decodeText(body));
    case 'spdx/json':
      return parseSpdxJson(parseJson(body, NAMES.spdx));
    case 'spdx/tag-value':
      return parseSpdxTagValue(decodeText(body));
    case 'findings/json':
      return parseFindings(parseJson(body, NAMES.findings));
    default:
      throw new ParseError(`A ${NAMES[format] ?? format} cannot be written as ${syntax}`);
  }
}
