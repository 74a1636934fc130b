import { list, record, records, type JsonRecord } from './access.js';
import { ParseError } from './types.js';
import { parseXml, xmlText } from './xml.js';

/** Elements that may repeat: always read as arrays, so one <component> reads like many. */
const REPEATED = new Set([
  'component',
  'service',
  'tool',
  'hash',
  'license',
  'expression',
  'dependency',
  'vulnerability',
  'rating',
  'target',
  'advisory',
]);

const NAMESPACE_VERSION = /cyclonedx\.org\/schema\/bom\/(\d+\.\d+)/;

/**
 * A CycloneDX XML document turned into the shape of its JSON form, for the parts we read.
 * The namespace differs per version (http://cyclonedx.org/schema/bom/1.x) and prefixes are
 * dropped, so only local names matter.
 */
export function bomFromXml(source: string): JsonRecord {
  const bom = record(parseXml(source, REPEATED).bom);
  if (!bom) throw new ParseError('The XML is not a CycloneDX BOM: its root element is not <bom>');
  const metadata = record(bom.metadata);
  return {
    bomFormat: 'CycloneDX',
    specVersion: NAMESPACE_VERSION.exec(source.slice(0, 4096))?.[1],
    metadata: {
      tools: toolsOf(record(metadata?.tools)),
      component: componentsOf(metadata?.component)[0],
    },
    components: componentsOf(record(bom.components)?.component),
    dependencies: records(record(bom.dependencies)?.dependency).map((dependency) => ({
      ref: xmlText(dependency['@_ref']),
      dependsOn: records(dependency.dependency).map((child) => xmlText(child['@_ref'])),
    })),
    vulnerabilities: records(record(bom.vulnerabilities)?.vulnerability).map(vulnerabilityOf),
  };
}

function toolsOf(tools: JsonRecord | undefined): unknown {
  if (!tools) return undefined;
  if (tools.tool !== undefined) return records(tools.tool).map(nameAndVersion);
  return {
    components: componentsOf(record(tools.components)?.component),
    services: records(record(tools.services)?.service).map(nameAndVersion),
  };
}

function nameAndVersion(element: JsonRecord): JsonRecord {
  return { name: xmlText(element.name), version: xmlText(element.version) };
}

/** Nesting is bounded by the XML parser's depth limit, so plain recursion is safe here. */
function componentsOf(value: unknown): JsonRecord[] {
  return records(value).map((component) => ({
    'bom-ref': xmlText(component['@_bom-ref']),
    type: xmlText(component['@_type']),
    name: xmlText(component.name),
    version: xmlText(component.version),
    purl: xmlText(component.purl),
    licenses: licensesOf(record(component.licenses)),
    hashes: records(record(component.hashes)?.hash).map((hash) => ({
      alg: xmlText(hash['@_alg']),
      content: xmlText(hash),
    })),
    components: componentsOf(record(component.components)?.component),
  }));
}

function licensesOf(licenses: JsonRecord | undefined): JsonRecord[] {
  if (!licenses) return [];
  return [
    ...records(licenses.license).map((license) => ({
      license: { id: xmlText(license.id), name: xmlText(license.name) },
    })),
    ...list(licenses.expression).map((expression) => ({ expression: xmlText(expression) })),
  ];
}

function vulnerabilityOf(vulnerability: JsonRecord): JsonRecord {
  return {
    id: xmlText(vulnerability.id),
    'bom-ref': xmlText(vulnerability['@_bom-ref']),
    description: xmlText(vulnerability.description),
    detail: xmlText(vulnerability.detail),
    source: { url: xmlText(record(vulnerability.source)?.url) },
    ratings: records(record(vulnerability.ratings)?.rating).map((rating) => ({
      severity: xmlText(rating.severity),
      score: xmlText(rating.score),
    })),
    affects: records(record(vulnerability.affects)?.target).map((target) => ({ ref: xmlText(target.ref) })),
    advisories: records(record(vulnerability.advisories)?.advisory).map((advisory) => ({
      url: xmlText(advisory.url),
    })),
  };
}
