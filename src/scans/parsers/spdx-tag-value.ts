import type { JsonRecord } from './access.js';
import { ParseError } from './types.js';

const LINE_BREAK = /\r\n|\r|\n/;
const TAG = /^[A-Za-z][A-Za-z0-9]*$/;
const WHITESPACE = /\s+/;
const TEXT_OPEN = '<text>';
const TEXT_CLOSE = '</text>';

interface Document {
  spdxVersion?: string;
  creationInfo: { creators: string[] };
  packages: JsonRecord[];
  relationships: JsonRecord[];
}

/**
 * An SPDX tag-value document turned into the shape of SPDX JSON, for the parts we read.
 * Elements follow each other: a package runs from its PackageName to the next element's first
 * tag (FileName, SnippetSPDXID, LicenseID or another PackageName).
 */
export function documentFromTagValue(source: string): JsonRecord {
  const doc: Document = { creationInfo: { creators: [] }, packages: [], relationships: [] };
  let pkg: JsonRecord | undefined;
  for (const { tag, value } of tagValues(source)) {
    switch (tag) {
      case 'SPDXVersion':
        doc.spdxVersion ??= value;
        break;
      case 'Creator':
        doc.creationInfo.creators.push(value);
        break;
      case 'Relationship':
        doc.relationships.push(relationship(value));
        break;
      case 'PackageName':
        pkg = { name: value, checksums: [], externalRefs: [] };
        doc.packages.push(pkg);
        break;
      case 'FileName':
      case 'SnippetSPDXID':
      case 'LicenseID':
        pkg = undefined;
        break;
      default:
        if (pkg) packageField(pkg, tag, value);
    }
  }
  return { ...doc };
}

function packageField(pkg: JsonRecord, tag: string, value: string): void {
  switch (tag) {
    case 'SPDXID':
      pkg.SPDXID = value;
      break;
    case 'PackageVersion':
      pkg.versionInfo = value;
      break;
    case 'PackageLicenseConcluded':
      pkg.licenseConcluded = value;
      break;
    case 'PackageLicenseDeclared':
      pkg.licenseDeclared = value;
      break;
    case 'PrimaryPackagePurpose':
      pkg.primaryPackagePurpose = value;
      break;
    case 'PackageChecksum': {
      // "SHA1: 85ed0817af83a24ad8da68c2b5094de69833983c"
      const colon = value.indexOf(':');
      if (colon > 0) {
        (pkg.checksums as JsonRecord[]).push({
          algorithm: value.slice(0, colon).trim(),
          checksumValue: value.slice(colon + 1).trim(),
        });
      }
      break;
    }
    case 'ExternalRef': {
      // "PACKAGE-MANAGER purl pkg:maven/org.apache.jena/apache-jena@3.12.0"
      const [referenceCategory, referenceType, referenceLocator] = value.split(WHITESPACE);
      (pkg.externalRefs as JsonRecord[]).push({ referenceCategory, referenceType, referenceLocator });
      break;
    }
  }
}

/** "SPDXRef-Package DEPENDS_ON SPDXRef-Saxon" */
function relationship(value: string): JsonRecord {
  const [spdxElementId, relationshipType, relatedSpdxElement] = value.split(WHITESPACE);
  return { spdxElementId, relationshipType, relatedSpdxElement };
}

/** `Tag: value` pairs; a value may span lines between <text> and </text>. */
function* tagValues(source: string): Generator<{ tag: string; value: string }> {
  const lines = source.split(LINE_BREAK);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const colon = line.indexOf(':');
    const tag = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!TAG.test(tag)) {
      throw new ParseError(`SPDX tag-value line ${i + 1} is not "Tag: value": ${JSON.stringify(trimmed.slice(0, 80))}`);
    }
    let value = line.slice(colon + 1).trim();
    if (value.startsWith(TEXT_OPEN)) {
      const first = i;
      const parts = [value.slice(TEXT_OPEN.length)];
      while (!(parts[parts.length - 1] ?? '').includes(TEXT_CLOSE)) {
        if (++i >= lines.length) {
          throw new ParseError(`SPDX tag-value line ${first + 1}: <text> is never closed by </text>`);
        }
        parts.push(lines[i] ?? '');
      }
      const joined = parts.join('\n');
      value = joined.slice(0, joined.indexOf(TEXT_CLOSE));
    }
    yield { tag, value };
  }
}
