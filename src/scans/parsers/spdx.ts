import { describeType, list, record, records, text, type JsonRecord } from './access.js';
import { analysis } from './finding.js';
import { DependencyGraph } from './graph.js';
import { documentFromTagValue } from './spdx-tag-value.js';
import { decodeText, parseJson } from './text.js';
import { type NormalisedComponent, type NormalisedDependency, type NormalisedScan } from '../../domain/scan.js';
import { FAMILIES, ParseError, type FormatParser } from './types.js';

const SPDX_2 = /^SPDX-2\.\d+$/;
const NO_LICENSE: ReadonlySet<string> = new Set(['NOASSERTION', 'NONE']);
/** "Tool: trivy-0.50.1", "Tool: LicenseFind-1.0", and Trivy's own builds: "Tool: trivy-dev". */
const TOOL_WITH_VERSION = /^(.+?)-(v?\d.*|dev)$/;

/** SPDX algorithm names spelt the CycloneDX way, so one hash reads the same from either format. */
const HASH_ALGORITHMS: ReadonlyMap<string, string> = new Map([
  ['SHA1', 'SHA-1'],
  ['SHA224', 'SHA-224'],
  ['SHA256', 'SHA-256'],
  ['SHA384', 'SHA-384'],
  ['SHA512', 'SHA-512'],
  ['SHA3-256', 'SHA3-256'],
  ['SHA3-384', 'SHA3-384'],
  ['SHA3-512', 'SHA3-512'],
]);

export function parseSpdxJson(doc: unknown): NormalisedScan {
  const spdx = record(doc);
  if (!spdx) throw new ParseError(`An SPDX document must be a JSON object, not ${describeType(doc)}`);
  return fromDocument(spdx);
}

export function parseSpdxTagValue(source: string): NormalisedScan {
  return fromDocument(documentFromTagValue(source));
}

function fromDocument(doc: JsonRecord): NormalisedScan {
  checkVersion(doc);
  const tool = toolOf(record(doc.creationInfo)?.creators);
  const result = analysis(tool.name, tool.version);
  if (doc.packages !== undefined && !Array.isArray(doc.packages)) {
    throw new ParseError(`"packages" must be an array, not ${describeType(doc.packages)}`);
  }
  const packages = list(doc.packages).map((value, index) => {
    const pkg = record(value);
    if (!pkg) throw new ParseError(`packages[${index}] must be an object, not ${describeType(value)}`);
    return toComponent(pkg, index);
  });
  const packageIds = new Set(packages.map((component) => component.ref));
  result.dependencies = dependenciesOf(doc.relationships, packageIds);
  result.roots = rootsOf(doc, packageIds);
  // What the document describes is the subject of the SBOM, as CycloneDX's metadata.component is:
  // the graph starts there, but it is not one of its components.
  const roots = new Set(result.roots);
  result.components = packages.filter((component) => component.ref === null || !roots.has(component.ref));
  return { format: 'spdx', analyses: [result] };
}

function checkVersion(doc: JsonRecord): void {
  const version = text(doc.spdxVersion);
  if (version && SPDX_2.test(version)) return;
  if (version === undefined && (doc['@context'] !== undefined || doc['@graph'] !== undefined)) {
    throw new ParseError('SPDX 3 (JSON-LD) is not supported yet; upload SPDX 2.2 or 2.3');
  }
  if (version === undefined) throw new ParseError('This is not an SPDX document: "spdxVersion" is missing');
  throw new ParseError(`${version} is not supported; upload SPDX 2.2 or 2.3`);
}

function toolOf(creators: unknown): { name: string; version: string | null } {
  for (const creator of list(creators)) {
    const written = text(creator);
    if (!written?.startsWith('Tool:')) continue;
    const tool = written.slice('Tool:'.length).trim();
    if (!tool) continue;
    const match = TOOL_WITH_VERSION.exec(tool);
    return match?.[1] && match[2] ? { name: match[1], version: match[2] } : { name: tool, version: null };
  }
  return { name: 'SPDX', version: null };
}

function toComponent(pkg: JsonRecord, index: number): NormalisedComponent {
  const name = text(pkg.name);
  if (!name) throw new ParseError(`packages[${index}].name is missing`);
  const purpose = text(pkg.primaryPackagePurpose);
  return {
    ref: text(pkg.SPDXID) ?? null,
    name,
    version: text(pkg.versionInfo) ?? null,
    purl: purlOf(pkg.externalRefs),
    type: purpose ? purpose.toLowerCase() : null,
    licenses: licensesOf(pkg),
    hashes: records(pkg.checksums).flatMap((checksum) => {
      const alg = text(checksum.algorithm);
      const value = text(checksum.checksumValue);
      return alg && value ? [{ alg: HASH_ALGORITHMS.get(alg.toUpperCase()) ?? alg, value }] : [];
    }),
  };
}

function purlOf(externalRefs: unknown): string | null {
  for (const ref of records(externalRefs)) {
    if (text(ref.referenceType)?.toLowerCase() === 'purl') return text(ref.referenceLocator) ?? null;
  }
  return null;
}

/** The concluded licence when someone concluded one, else what the package declares. */
function licensesOf(pkg: JsonRecord): string[] {
  for (const field of [pkg.licenseConcluded, pkg.licenseDeclared]) {
    const expression = text(field)?.trim();
    if (expression && !NO_LICENSE.has(expression)) return [expression];
  }
  return [];
}

/**
 * The packages the document describes (SPDX 2.3 §11.1: `DESCRIBES` from the document, its inverse
 * `DESCRIBED_BY`, and 2.2's `documentDescribes`), where the graph starts.
 */
function rootsOf(doc: JsonRecord, packageIds: ReadonlySet<string | null>): string[] {
  const roots = new Set<string>();
  for (const described of list(doc.documentDescribes)) {
    const id = text(described);
    if (id && packageIds.has(id)) roots.add(id);
  }
  for (const relationship of records(doc.relationships)) {
    const type = text(relationship.relationshipType)?.toUpperCase();
    const id = type === 'DESCRIBES' ? text(relationship.relatedSpdxElement) : type === 'DESCRIBED_BY' ? text(relationship.spdxElementId) : undefined;
    if (id && packageIds.has(id)) roots.add(id);
  }
  return [...roots];
}

/**
 * The package graph: A DEPENDS_ON B and A CONTAINS B give A → B, A DEPENDENCY_OF B and A
 * CONTAINED_BY B give B → A.
 * Relationships with files, snippets or other documents are not between components and are left out.
 */
function dependenciesOf(relationships: unknown, packageIds: ReadonlySet<string | null>): NormalisedDependency[] {
  const graph = new DependencyGraph();
  for (const relationship of records(relationships)) {
    const type = text(relationship.relationshipType)?.toUpperCase();
    let from = text(relationship.spdxElementId);
    let to = text(relationship.relatedSpdxElement);
    if (type === 'DEPENDENCY_OF' || type === 'CONTAINED_BY') [from, to] = [to, from];
    else if (type !== 'DEPENDS_ON' && type !== 'CONTAINS') continue;
    if (from && to && packageIds.has(from) && packageIds.has(to)) graph.add(from, to);
  }
  return graph.toList();
}

export const spdxJson: FormatParser = {
  title: 'SPDX JSON', format: 'spdx', syntax: 'json', contentTypes: ['application/spdx+json'],
  // SPDX 3 (JSON-LD) is recognised so that the parser can say it is not read yet.
  recognises: (doc) => !doc.array && (doc.keyValueStartsWith('spdxVersion', 'SPDX-') || (doc.hasKey('@context') && doc.includes('spdx.org/rdf/3'))),
  parse: (body) => parseSpdxJson(parseJson(body, FAMILIES.spdx.document)),
};

export const spdxTagValue: FormatParser = {
  title: 'SPDX tag-value', format: 'spdx', syntax: 'tag-value', contentTypes: ['text/spdx'],
  recognises: (doc) => doc.includes('SPDXVersion:'),
  parse: (body) => parseSpdxTagValue(decodeText(body)),
};
